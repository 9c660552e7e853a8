/* The gallery's filter (figures/site/gallery.py writes it hidden): by the page that explains a
 * figure and by words of its id or caption; says how many figures it shows. Plain ES2017. */
(() => {
  'use strict';
  function setUp() {
    const form = document.querySelector('.mha-gallery-filter');
    if (!form) return;
    const items = [...document.querySelectorAll('.mha-gallery-item')];
    const count = form.querySelector('output');
    function apply() {
      const page = form.elements.page.value;
      const words = form.elements.words.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      items.forEach((item) => {
        const keep = (!page || item.dataset.page === page) && words.every((w) => item.dataset.words.includes(w));
        item.hidden = !keep;
        shown += keep;
      });
      count.value = form.dataset.count.replace('{shown}', shown).replace('{total}', items.length);
    }
    form.addEventListener('input', apply);
    form.addEventListener('submit', (e) => e.preventDefault());
    form.hidden = false;
    apply();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();
