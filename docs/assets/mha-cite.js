/* "Cite this page" (figures/site/cite.py): the day the reader reads the page is filled in for them,
 * as GB/T 7714 and BibTeX write it (YYYY-MM-DD) and as APA does (Month D, YYYY), so the copy button
 * copies a finished citation. Print keeps the placeholders (a handout is read on another day), and
 * without script they stay too. Plain ES2017. */
(() => {
  'use strict';
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
    'October', 'November', 'December'];
  const now = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  const TODAY = {
    'YYYY-MM-DD': `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`,
    'Month D, YYYY': `${MONTHS[now.getMonth()]} ${now.getDate()}, ${now.getFullYear()}`,
  };
  const PLACEHOLDERS = new RegExp(Object.keys(TODAY).join('|'), 'g');
  const kept = [];  // [text node, its text with the placeholders]

  function fill() {
    if (kept.length) return kept.forEach(([node, text]) => { node.nodeValue = text.replace(PLACEHOLDERS, (p) => TODAY[p]); });
    document.querySelectorAll('.md-typeset pre code').forEach((code) => {
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (PLACEHOLDERS.test(node.nodeValue)) kept.push([node, node.nodeValue]);
        PLACEHOLDERS.lastIndex = 0;
      }
    });
    if (kept.length) fill();
  }
  const placeholders = () => kept.forEach(([node, text]) => { node.nodeValue = text; });

  window.addEventListener('beforeprint', placeholders);
  window.addEventListener('afterprint', fill);
  window.matchMedia('print').addEventListener('change', (e) => (e.matches ? placeholders() : fill()));
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fill);
  else fill();
})();
