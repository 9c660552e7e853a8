/* Print handouts (with mha-print.css). Plain ES2017, no dependencies.
 * - Print is always light: a page in the dark scheme switches to the light one while it prints
 *   (light text on white paper, or near-black pages with background graphics, otherwise).
 * - Worked answers: Material opens every <details> for print, so a handout would give the answers
 *   away. An answer prints only if the reader opened it, or if "print with every answer" is
 *   ticked (the box above the page's first answer, on screen only). */
(() => {
  'use strict';
  const ANSWERS = '.md-typeset details.success';
  const WORDS = {
    zh: {all: '打印时附上全部参考解答', left: '（未打印）'},
    en: {all: 'Print with every worked answer', left: ' (not printed)'},
  };
  const words = WORDS[document.documentElement.lang.startsWith('zh') ? 'zh' : 'en'];

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

  function setUp() {
    const answers = document.querySelectorAll(ANSWERS);
    if (!answers.length) return;
    answers.forEach((d) => {
      const note = document.createElement('span');
      note.className = 'mha-answer-left-out';
      note.textContent = words.left;
      d.querySelector(':scope > summary').append(note);
    });
    const label = document.createElement('label');
    label.className = 'mha-answers-switch mha-screen-only';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.addEventListener('change', () => document.documentElement.classList.toggle('mha-answers-in-print', box.checked));
    label.append(box, ' ', words.all);
    answers[0].before(label);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUp);
  else setUp();
})();
