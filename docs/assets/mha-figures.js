/* Frame stepper for the multi-head-attention figures.
 * Progressive enhancement: the server-rendered HTML shows every frame as a
 * small multiple; this script turns a multi-frame figure into a one-frame
 * viewer with a slider. All visible text comes from data-* attributes, so the
 * script needs no translations. Plain ES2017, no dependencies. */
(() => {
  'use strict';
  let uid = 0; // unique ids so each <label>/<output> can point at its slider

  const el = (tag, props) => Object.assign(document.createElement(tag), props);
  // A frame the slider hides comes without src or srcset (figures/site/markup.py): this fetches
  // it, its <source>s first, so that the <img> picks the one for the page's width. The picture of
  // the other scheme (light or dark) is not shown, and a lazy image not shown is not fetched.
  const fetchImages = (frame) => {
    if (!frame) return;
    frame.querySelectorAll('source[data-srcset]:not([srcset])').forEach((s) => { s.srcset = s.dataset.srcset; });
    frame.querySelectorAll('img[data-src]:not([src])').forEach((img) => { img.src = img.dataset.src; });
  };
  const clamp = (i, max) => Math.min(Math.max(i, 0), max);

  function enhance(box) {
    // Guard against double initialisation (script included twice, re-run init).
    if (box.classList.contains('mha-js')) return;
    const frames = Array.from(box.querySelectorAll(':scope > .mha-frame'));
    if (frames.length < 2) return; // a single frame gets no controls at all
    const d = box.dataset;
    const last = frames.length - 1;
    const start = parseInt(d.start, 10); // may be missing or malformed: NaN -> 0
    let current = 0;

    const id = 'mha-range-' + (++uid);
    // the page holds the row's room from the start (figures/site/markup.py), so nothing below moves
    const slot = box.previousElementSibling;
    const row = slot && slot.matches('.mha-controls:empty') ? slot : el('div', { className: 'mha-controls' });
    const label = el('label', { htmlFor: id, textContent: d.labelControl || '' });
    const range = el('input', { type: 'range', id, min: 0, max: last, step: 1 });
    const button = (cls, text, name) => {
      const b = el('button', { type: 'button', className: cls, textContent: text, title: name || '' });
      if (name) b.setAttribute('aria-label', name); // the glyph alone means nothing to a screen reader
      return b;
    };
    const prev = button('mha-prev', '‹', d.labelPrev);
    const next = button('mha-next', '›', d.labelNext);
    const out = el('output', { className: 'mha-value' });
    out.setAttribute('for', id);
    row.append(label, prev, range, next, out);

    // A hidden frame is fetched when it is shown, and, once the reader has touched the figure,
    // one step either side of the frame shown.
    let touched = false;
    const fetchFrame = (k) => fetchImages(frames[k]);
    const fetchAround = () => [current - 1, current, current + 1].forEach(fetchFrame);

    function show(i) {
      current = clamp(i, last);
      fetchFrame(current);
      if (touched) fetchAround();
      frames.forEach((f, k) => f.classList.toggle('is-current', k === current));
      const value = frames[current].dataset.value || String(current + 1);
      range.value = current;
      range.setAttribute('aria-valuetext', value); // announce "the", not "4"
      out.value = value;
      // aria-disabled rather than disabled: a disabled button would drop keyboard focus.
      prev.setAttribute('aria-disabled', current === 0);
      next.setAttribute('aria-disabled', current === last);
      followDownloads(box, frames[current]);
    }

    const touch = () => { if (!touched) { touched = true; fetchAround(); } };
    ['pointerenter', 'pointerdown', 'focusin'].forEach((type) => row.addEventListener(type, touch));
    range.addEventListener('input', () => show(range.valueAsNumber));
    prev.addEventListener('click', () => show(current - 1));
    next.addEventListener('click', () => show(current + 1));
    // Give the buttons the slider's keys too; the slider itself handles them natively.
    const step = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 };
    row.addEventListener('keydown', (e) => {
      if (e.target.tagName !== 'BUTTON' || e.altKey || e.ctrlKey || e.metaKey) return;
      const i = e.key === 'Home' ? 0 : e.key === 'End' ? last
        : e.key in step ? current + step[e.key] : null;
      if (i === null) return;
      e.preventDefault(); // keep the page from scrolling
      show(i);
    });

    if (row !== slot) box.parentNode.insertBefore(row, box); // control row sits above the frames
    box.classList.add('mha-js'); // enhanced: the CSS made it a stepper already (.mha-js-on)
    show(Number.isFinite(start) ? start : 0);
  }

  // "Download this frame" links point at the frame shown (each frame lists its files in data-svg, ...,
  // and the names they are saved under in data-svg-name, ...).
  function followDownloads(box, frame) {
    const figure = box.closest('figure');
    if (!figure) return;
    figure.querySelectorAll('.mha-downloads a.mha-dl').forEach((a) => {
      const href = frame.dataset[a.dataset.fmt];
      if (href) a.href = href;
      const name = frame.dataset[a.dataset.fmt + 'Name'];
      if (name) a.download = name;
    });
  }

  // "Copy link": the address the reader is on, with the figure's anchor (the link's href, "#fig-ID",
  // resolved against it), to the clipboard; without a clipboard, the link just goes to the anchor.
  // In a release, its data-address instead: the frozen one, or beside it the newest release's.
  function copyLink(e) {
    const a = e.target.closest('a.mha-copy-link');
    if (!a || !navigator.clipboard) return;
    e.preventDefault();
    // a release's two links name their address (this release's, frozen, and the newest's)
    const address = a.dataset.address || new URL(a.getAttribute('href'), window.location.href).href;
    navigator.clipboard.writeText(address).then(() => {
      const text = a.textContent;
      a.textContent = a.dataset.labelCopied || text;
      setTimeout(() => { a.textContent = text; }, 1500);
    }, () => { window.location.hash = a.hash; });
  }

  // Print shows every frame (mha-print.css): fetch the ones the slider kept back.
  const fetchAll = () => document.querySelectorAll('.mha-frame').forEach(fetchImages);
  window.addEventListener('beforeprint', fetchAll);
  window.matchMedia('print').addEventListener('change', (e) => { if (e.matches) fetchAll(); });

  const init = () => {
    document.querySelectorAll('.mha-frames').forEach(enhance);
    if (!document.documentElement.dataset.mhaCopy) { // one listener, even if init runs twice
      document.documentElement.dataset.mhaCopy = '1';
      document.addEventListener('click', copyLink);
    }
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init(); // script was loaded late (async/defer): the DOM is already there
})();
