/* The static widget renderer (@jupyter-widgets/html-manager 1.x) typesets widget labels
 * through the MathJax 2 API -- MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]) -- but the
 * site loads MathJax 3, which has no Hub ("Cannot read properties of undefined (reading
 * 'Queue')"). This file, loaded before MathJax, provides that one call and forwards it to
 * MathJax 3's typesetPromise once MathJax has started. Part of panpriv-teach (course/build.py). */
(function () {
  "use strict";
  var pending = [];

  function typeset(elements) {
    var mj = window.MathJax;
    mj.startup.promise = mj.startup.promise
      .then(function () { return mj.typesetPromise(elements); })
      .catch(function (err) { console.warn("MathJax typeset of a widget failed:", err); });
  }

  var hub = {
    Queue: function (job) {
      var element = Array.isArray(job) ? job[2] : undefined;
      var mj = window.MathJax;
      if (mj && mj.startup && mj.startup.promise && typeof mj.typesetPromise === "function") {
        typeset(element ? [element] : undefined);
      } else if (element) {
        pending.push(element); // MathJax 3 has not started yet (or this page has no math)
      }
    }
  };

  var config = window.MathJax || {};
  config.Hub = hub;
  config.startup = config.startup || {};
  var ready = config.startup.ready;
  config.startup.ready = function () {
    if (ready) { ready(); } else { window.MathJax.startup.defaultReady(); }
    window.MathJax.Hub = hub;
    if (pending.length) { typeset(pending.splice(0)); }
  };
  window.MathJax = config;
}());
