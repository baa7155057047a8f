// Extra MathJax set-up of the course site (Doxygen's MATHJAX_CODEFILE): formulas are typeset in
// prose only. Doxygen renders code blocks as <div class="fragment">, not <pre>, so without this a
// command such as grep 'out\[t\]' would be typeset as display math.
MathJax.Hub.Config({ tex2jax: { ignoreClass: "fragment" } });
// A formula wider than the text column (a phone's) breaks into lines at its operators instead of
// running off the screen; what cannot break scrolls in its own box (docs/course.css).
MathJax.Hub.Config({ "HTML-CSS": { linebreaks: { automatic: true } } });
