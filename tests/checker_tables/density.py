"""Module mutation table (being written)."""
from checker_testing import Table

table = Table("density")
