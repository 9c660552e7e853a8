/* A page read online keeps working offline. Fetched by mha-page.js once the page is idle (and not
 * when the browser asks to save data, nor from disk), this registers the site's service worker
 * (sw.js, figures/site/offline-worker.js) and hands it every file the page may need offline: the
 * page, what it loaded, every frame of its figures in each look (light and dark, wide and narrow,
 * the frames the slider has not shown yet) and its language's search. Its outcome is in
 * <html data-mha-offline>: "kept", "partial" or "failed" ("save-data": mha-page.js). Plain ES2017. */
(() => {
  'use strict';
  const meta = document.querySelector('meta[name="mha-worker"]');
  if (!meta || !('serviceWorker' in navigator)) return;
  const said = (what) => { document.documentElement.dataset.mhaOffline = what; };
  const absolute = (u) => new URL(u, document.baseURI).href.split('#')[0];

  function pageFiles() {
    const files = new Set([window.location.href.split(/[?#]/)[0]]);
    performance.getEntriesByType('resource').forEach((e) => files.add(e.name.split('#')[0]));
    document.querySelectorAll('img, source').forEach((el) => {
      [el.getAttribute('src'), el.dataset.src].forEach((u) => { if (u) files.add(absolute(u)); });
      [el.getAttribute('srcset'), el.dataset.srcset].forEach((set) => {
        if (set) set.split(',').forEach((c) => { const u = c.trim().split(/\s+/)[0]; if (u) files.add(absolute(u)); });
      });
    });
    const config = document.getElementById('__config'); // Material's: its search worker and index
    if (config) {
      try {
        const c = JSON.parse(config.textContent);
        if (c.search) files.add(absolute(c.search));
        if (c.base) files.add(absolute(c.base.replace(/\/?$/, '/') + 'search/search_index.json'));
      } catch (e) { /* no search on this page */ }
    }
    return Array.from(files);
  }

  navigator.serviceWorker.register(meta.content)
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = (e) => said(e.data.failed.length ? 'partial' : 'kept');
      registration.active.postMessage({ type: 'keep', urls: pageFiles() }, [channel.port2]);
    })
    .catch(() => said('failed'));
})();
