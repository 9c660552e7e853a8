/* Page-wide touches to Material's page. Plain ES2017, no dependencies.
 * - The language menu keeps the reader's place: following a link to the other language (Material's
 *   menu, a.md-select__link[hreflang]) adds the current anchor, or, when the reader has scrolled
 *   without one, the id of the heading or figure at the top of the screen. Both languages share
 *   every id (figures/site/language.py says why Material's own switch is not used).
 * - Material's search dialog gets a name (its input's placeholder, in the page's language), each
 *   code block's button bar a name of its own, and a table too wide for the column, which scrolls
 *   sideways, can be reached and scrolled by keyboard.
 * - Reading offline: once the page has loaded and the browser is idle, mha-offline.js is fetched
 *   (not before: the first view's bytes stay as they were), unless the browser asks to save data,
 *   the page comes from disk (file://) or the build registers no worker (no meta mha-worker).
 * - An earlier release (Material's `outdated` banner, shown from mike's versions.json): the banner's
 *   link (overrides/main.html) goes to the same page in the newest release, at the reader's place
 *   when the newest page still has that id, or to its home when the page is gone there. */
(() => {
  'use strict';
  const PLACES = '.md-content h2[id], .md-content h3[id], .md-content figure[id]';

  // The anchor, else the last heading or figure whose top has scrolled above a quarter of the screen.
  function place() {
    if (window.location.hash.length > 1) return window.location.hash;
    let found = '';
    for (const el of document.querySelectorAll(PLACES)) {
      if (el.getBoundingClientRect().top > window.innerHeight / 4) break;
      found = '#' + el.id;
    }
    return found;
  }

  function carry(e) {
    const a = e.target.closest && e.target.closest('a.md-select__link[hreflang]');
    if (!a) return;
    a.href = a.href.split('#')[0] + place();
  }

  // Before the link is followed, however it is followed: mouse, touch, keyboard, middle click.
  ['pointerdown', 'focusin', 'click', 'auxclick'].forEach((type) => document.addEventListener(type, carry, true));

  function name() {
    const dialog = document.querySelector('.md-search[role=dialog]');
    const input = document.querySelector('.md-search__input');
    if (dialog && input && !dialog.hasAttribute('aria-label')) dialog.setAttribute('aria-label', input.placeholder);
    document.querySelectorAll('.md-typeset__scrollwrap, .mha-math').forEach(focusableIfScrolls);
    // Material puts each code block's copy button in a <nav>: landmarks a screen reader lists, so
    // each gets a name of its own.
    // A table header that is only a formula (d_k = d_v): its formula is named by its text, so the
    // header is not read as empty with each cell of its column.
    document.querySelectorAll('.md-typeset th').forEach((th) => {
      const text = [...th.childNodes].filter((n) => n.nodeName.toLowerCase() !== 'math').map((n) => n.textContent).join('');
      const math = th.querySelector('math');
      if (math && !text.trim()) math.setAttribute('aria-label', math.textContent.replace(/\s+/g, ' ').trim());
    });
    const zh = document.documentElement.lang.startsWith('zh');
    document.querySelectorAll('.md-code__nav').forEach((nav, i) =>
      nav.setAttribute('aria-label', zh ? `代码块 ${i + 1} 的按钮` : `Code block ${i + 1} buttons`));
  }
  // A table that scrolls sideways takes focus, so a keyboard can scroll it; one folded in a
  // figure's numbers (<details>) is measured when it is opened.
  function focusableIfScrolls(wrap) {
    if (wrap.scrollWidth > wrap.clientWidth) wrap.tabIndex = 0;
  }
  document.addEventListener('toggle', (e) => {
    if (e.target.open) e.target.querySelectorAll('.md-typeset__scrollwrap').forEach(focusableIfScrolls);
  }, true);
  // After Material: its script, deferred before this one, wraps wide tables on DOMContentLoaded,
  // which fires after every deferred script has run (so readyState 'interactive' is too early).
  if (document.readyState === 'complete') name();
  else document.addEventListener('DOMContentLoaded', name);

  // The newest release's copy of this page: fetched once the banner shows (never in the newest
  // release itself, where Material keeps it hidden), and the ids it holds.
  function newest(link) {
    let config;
    try {
      config = JSON.parse(document.getElementById('__config').textContent);
    } catch (e) {
      return;
    }
    // this release's root: Material's __md_scope (an English page's config.base is its en/ root)
    if (!(window.__md_scope instanceof URL)) return;
    const root = window.__md_scope;
    if (!window.location.pathname.startsWith(root.pathname)) return;
    const alias = [].concat((config.version && config.version.default) || 'latest')[0];
    const page = new URL(`../${alias}/${window.location.pathname.slice(root.pathname.length)}`, root).href;
    fetch(page, { credentials: 'same-origin' }).then((r) => (r.ok ? r.text() : Promise.reject(r.status))).then((text) => {
      const doc = new DOMParser().parseFromString(text, 'text/html');
      const to = () => {
        const here = place();
        link.href = page + (here && doc.getElementById(decodeURIComponent(here.slice(1))) ? here : '');
      };
      to();
      ['pointerdown', 'focusin', 'click', 'auxclick'].forEach((type) => link.addEventListener(type, to, true));
      link.dataset.mhaNewest = 'page';
    }, () => { link.dataset.mhaNewest = 'home'; });
  }
  const banner = document.querySelector('[data-md-component=outdated]');
  const link = banner && banner.querySelector('a.mha-newest');
  if (link) {
    const watch = new MutationObserver(() => {
      if (banner.hidden) return;
      watch.disconnect();
      newest(link);
    });
    watch.observe(banner, { attributes: true, attributeFilter: ['hidden'] });
    if (!banner.hidden) { watch.disconnect(); newest(link); }
  }

  function offline() {
    const meta = document.querySelector('meta[name="mha-worker"]');
    if (!meta || !('serviceWorker' in navigator) || !/^https?:$/.test(window.location.protocol)) return;
    if (navigator.connection && navigator.connection.saveData) {
      document.documentElement.dataset.mhaOffline = 'save-data';
      return;
    }
    document.head.append(Object.assign(document.createElement('script'), { src: meta.dataset.script }));
  }
  const idle = () => ('requestIdleCallback' in window ? window.requestIdleCallback(offline, { timeout: 10000 }) : setTimeout(offline, 2000));
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
})();
