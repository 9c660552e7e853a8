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
      const href = frame.dataset[a.dataset.fmt] || frame.dataset[a.dataset.draw || ''];
      if (href) a.href = href;
      const name = frame.dataset[a.dataset.fmt + 'Name'];
      if (name) a.download = name;
      if (a.dataset.draw) {
        a.dataset.drawHref = frame.dataset[a.dataset.draw];
      }
    });
  }

  // A frame's dark look is its own SVG at #dark (figures/engine/dark.py, both()): the file holds a
  // stylesheet that the fragment switches on. A download of that look is a plain SVG, for slide
  // programs that read no stylesheet: literalDark, the same bytes as dark.literal in Python
  // (tests/test_slide_downloads.py): the stylesheet out, every colour set to its dark one, and each
  // inline image's recoloured twin in its place.
  const DARK_LOOK = '#dark';
  function literalDark(text) {
    const own = text.match(/<style id="mha-dark">([\s\S]*?)<\/style>/);
    if (!own) throw new Error('no dark look in this SVG');
    const colours = {};
    for (const m of own[1].matchAll(/--c([0-9a-f]{6}):(#[0-9a-f]{6})/g)) colours[m[1]] = m[2];
    return text.replace(own[0], '').replace('<svg id="dark" ', '<svg ')
      .replace(/(<image xlink:href=")[^"]*("[^>]*?\/>)<image class="mha-dark-only" display="none" xlink:href="([^"]*)"[^>]*?\/>/g, '$1$3$2')
      .replace(/#[0-9a-fA-F]{6}\b/g, (c) => colours[c.slice(1).toLowerCase()] || c);
  }
  const fetched = (url, how) => fetch(url).then((r) => { if (!r.ok) throw new Error(url); return r[how](); });
  const svgOf = async (href) => { // the SVG at href, in the look its address asks for
    const text = await fetched(href, 'text');
    return new Blob([href.endsWith(DARK_LOOK) ? literalDark(text) : text], { type: 'image/svg+xml' });
  };

  // A PNG (a link with data-draw, and every frame of a PNG zip) is drawn here from the frame's SVG,
  // light or dark, data-width px wide (a full-width 1080p slide at 2x), so the site keeps no PNG
  // file. It carries the SVG's attribution: the fields of its Dublin Core metadata, as the text
  // chunks figures/publish/stamp.py writes into a PNG (PNG_FIELDS there), right after the header.
  const PNG_FIELDS = [['Title', 'title'], ['Author', 'creator'], ['Description', 'description'],
    ['Copyright', 'rights'], ['Source', 'source'], ['Identifier', 'identifier']];
  const chunkEnd = (png, at) => at + 12 + new DataView(png.buffer, png.byteOffset).getUint32(at);
  function attributionChunks(svgText) {
    const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
    const dc = (name) => {
      const found = doc.getElementsByTagName('dc:' + name)[0]; // Dublin Core, as stamp.py writes it
      return found ? found.textContent : null;
    };
    const utf8 = new TextEncoder();
    return PNG_FIELDS.filter(([, name]) => dc(name) !== null).map(([key, name]) => {
      const body = utf8.encode(key + '\0\0\0' + (dc('language') || '') + '\0\0' + dc(name));
      const chunk = new Uint8Array(12 + body.length);
      const view = new DataView(chunk.buffer);
      view.setUint32(0, body.length);
      chunk.set(utf8.encode('iTXt'), 4);
      chunk.set(body, 8);
      view.setUint32(8 + body.length, crc32(chunk.subarray(4, 8 + body.length)));
      return chunk;
    });
  }
  async function drawnPng(href, width) {
    const svg = await svgOf(href);
    const text = await svg.text();
    const img = new Image();
    img.src = URL.createObjectURL(svg); // the page's own SVG, so the canvas stays readable
    try {
      await img.decode();
      const canvas = el('canvas', { width, height: Math.round(width * img.naturalHeight / img.naturalWidth) });
      canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
      const blob = await new Promise((done) => canvas.toBlob(done, 'image/png'));
      const png = new Uint8Array(await blob.arrayBuffer());
      const header = chunkEnd(png, 8);
      return new Blob([png.subarray(0, header), ...attributionChunks(text), png.subarray(header)], { type: 'image/png' });
    } finally {
      URL.revokeObjectURL(img.src);
    }
  }
  const save = (href, name) => {
    const a = el('a', { href, download: name });
    document.body.append(a);
    a.click();
    a.remove();
  };
  const failed = (a) => {
    const text = a.textContent;
    a.textContent = a.dataset.labelFailed || text;
    setTimeout(() => { a.textContent = text; }, 3000);
  };
  // The PNGs and the dark SVG, made here when their link is clicked (the site has no such file).
  function downloadMade(e) {
    const a = e.target.closest('a.mha-dl[data-draw], a.mha-dl[data-fmt="darkSvg"]');
    if (!a || e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    (a.dataset.draw ? drawnPng(a.dataset.drawHref, parseInt(a.dataset.width, 10)) : svgOf(a.href)).then((blob) => {
      const url = URL.createObjectURL(blob);
      save(url, a.download);
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    }, () => failed(a));
  }

  // "All frames" in one format: one zip, packed here from the frames' own files on the site (each
  // stamped with its attribution), so the site keeps no second copy of them. Its members, in
  // order: ATTRIBUTION.txt (the row's data-attribution), then every frame under its path below the
  // figures folder (data-frames of the links' row, + the format), as the CLI's zips hold them
  // (figures/publish/bundles.py), dated 1980-01-01 00:00 as they are, so the same frames give the
  // same zip. SVG and text are deflated where the browser can (CompressionStream); PNG and PDF,
  // compressed already, are stored. PNGs are drawn here as for one frame (data-width).
  const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
    for (let k = 0; k < 8; k++) n = n & 1 ? 0xEDB88320 ^ (n >>> 1) : n >>> 1;
    return n >>> 0;
  });
  const crc32 = (bytes) => {
    let c = 0xFFFFFFFF;
    for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xFF] ^ (c >>> 8);
    return (c ^ 0xFFFFFFFF) >>> 0;
  };
  async function deflated(bytes) {
    if (typeof CompressionStream === 'undefined') return null;
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
      return new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (e) {
      return null; // a browser without raw deflate: stored
    }
  }
  const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01; the time, 00:00:00, is 0
  async function zipOf(members) { // [[name, bytes, deflate?]] -> Blob
    const utf8 = new TextEncoder();
    const parts = [];
    const central = [];
    let offset = 0;
    for (const [name, data, deflate] of members) {
      const packed = deflate ? await deflated(data) : null;
      const body = packed && packed.length < data.length ? packed : data;
      const fields = [[20, 2], [0x0800, 2], [body === data ? 0 : 8, 2], [0, 2], [DOS_DATE, 2],
        [crc32(data), 4], [body.length, 4], [data.length, 4]]; // version 2.0, UTF-8 names, method, time, date
      const nameBytes = utf8.encode(name);
      const header = (signature, before, after) => {
        const all = [[signature, 4], ...before, ...fields, [nameBytes.length, 2], [0, 2], ...after];
        const out = new Uint8Array(all.reduce((n, [, size]) => n + size, 0) + nameBytes.length);
        const view = new DataView(out.buffer);
        let at = 0;
        for (const [value, size] of all) {
          if (size === 2) view.setUint16(at, value, true); else view.setUint32(at, value, true);
          at += size;
        }
        out.set(nameBytes, at);
        return out;
      };
      const local = header(0x04034B50, [], []);
      // made by Unix (3), version 2.0; no comment; disk 0; -rw-r--r--; where the local header starts
      central.push(header(0x02014B50, [[0x0314, 2]], [[0, 2], [0, 2], [0, 2], [0o644 * 65536, 4], [offset, 4]]));
      parts.push(local, body);
      offset += local.length + body.length;
    }
    const size = central.reduce((n, c) => n + c.length, 0);
    const end = new Uint8Array(22);
    const view = new DataView(end.buffer);
    [[0x06054B50, 4], [0, 2], [0, 2], [members.length, 2], [members.length, 2], [size, 4], [offset, 4], [0, 2]]
      .reduce((at, [value, n]) => {
        if (n === 2) view.setUint16(at, value, true); else view.setUint32(at, value, true);
        return at + n;
      }, 0);
    return new Blob([...parts, ...central, end], { type: 'application/zip' });
  }
  async function framesZip(a) {
    const row = a.closest('.mha-dl-every').dataset;
    const fmt = a.dataset.zip;
    const stems = row.frames.split(' ');
    const names = stems.map((stem) => stem + '.' + fmt);
    let files;
    if (a.dataset.width) { // PNGs, drawn from the frames' SVGs one after another (each canvas is large)
      files = [];
      for (const stem of stems) files.push(await (await drawnPng(row.base + stem + '.svg', parseInt(a.dataset.width, 10))).arrayBuffer());
    } else {
      files = await Promise.all(names.map((name) => fetched(row.base + name, 'arrayBuffer')));
    }
    return zipOf([['ATTRIBUTION.txt', new TextEncoder().encode(row.attribution), true],
      ...names.map((name, k) => [name, new Uint8Array(files[k]), fmt === 'svg'])]);
  }
  function downloadZip(e) {
    const a = e.target.closest('a.mha-zip');
    if (!a || e.button !== 0) return;
    e.preventDefault();
    framesZip(a).then((blob) => {
      const url = URL.createObjectURL(blob);
      save(url, a.dataset.download);
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    }, () => failed(a));
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
      // opened from disk, a page may not read back a canvas it drew, nor fetch a file: the build's
      // PNG, no dark SVG or PNG, and no zip of all frames (the frames are on the disk already)
      if (window.location.protocol === 'file:') document.documentElement.classList.add('mha-no-drawing');
      else {
        document.addEventListener('click', downloadMade);
        document.addEventListener('click', downloadZip);
      }
    }
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init(); // script was loaded late (async/defer): the DOM is already there
})();
