/* Print handouts (with mha-print.css). Plain ES2017, no dependencies.
 * - Print is always light: a page in the dark scheme switches to the light one while it prints
 *   (light text on white paper, or near-black pages with background graphics, otherwise).
 * - Worked answers: Material opens every <details> for print, so a handout would give the answers
 *   away. An answer prints only if the reader opened it, or if "print with every answer" is
 *   ticked (the box above the page's first answer, on screen only, written by
 *   figures/site/answers.py). */
(() => {
  'use strict';
  const ANSWERS = '.md-typeset details.success';
  let dark = false;  // the page was in the dark scheme when printing started
  function printing(on) {
    const body = document.body;
    if (on && body.getAttribute('data-md-color-scheme') === 'slate') {
      dark = true;
      body.setAttribute('data-md-color-scheme', 'default');
    } else if (!on && dark) {
      dark = false;
      body.setAttribute('data-md-color-scheme', 'slate');
    }
  }
  window.addEventListener('beforeprint', () => printing(true));
  window.addEventListener('afterprint', () => printing(false));
  window.matchMedia('print').addEventListener('change', (e) => printing(e.matches));

  // Before the summary's click toggles it: the answer is open after the click if it is closed now.
  document.addEventListener('click', (e) => {
    const summary = e.target.closest && e.target.closest(ANSWERS + ' > summary');
    if (summary) summary.parentElement.classList.toggle('mha-read', !summary.parentElement.open);
  }, true);

  // The switch and the notes are in the page (figures/site/answers.py): the script only listens.
  document.addEventListener('change', (e) => {
    if (e.target.matches && e.target.matches('.mha-answers-switch input')) {
      document.documentElement.classList.toggle('mha-answers-in-print', e.target.checked);
    }
  });
})();
