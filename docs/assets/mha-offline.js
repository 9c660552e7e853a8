/* A page read online keeps working offline: once the page is idle, this registers the site's
 * service worker (sw.js, figures/site/offline-worker.js) and hands it every file the page may need
 * offline: the page, what it loaded, every frame of its figures in each look (light and dark, wide
 * and narrow, the frames the slider has not shown yet) and its language's search index. Nothing
 * when the browser asks to save data, when the page comes from disk (file://: the offline copy) or
 * when the build has no worker (no <meta name="mha-worker">). Its outcome is in
 * <html data-mha-offline>: "kept", "partial", "save-data" or "failed". Plain ES2017. */
(() => {
  'use strict';
  const meta = document.querySelector('meta[name="mha-worker"]');
  if (!meta || !('serviceWorker' in navigator) || !/^https?:$/.test(window.location.protocol)) return;
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

  function keep() {
    if (navigator.connection && navigator.connection.saveData) { said('save-data'); return; }
    navigator.serviceWorker.register(meta.content)
      .then(() => navigator.serviceWorker.ready)
      .then((registration) => {
        const channel = new MessageChannel();
        channel.port1.onmessage = (e) => said(e.data.failed.length ? 'partial' : 'kept');
        registration.active.postMessage({ type: 'keep', urls: pageFiles() }, [channel.port2]);
      })
      .catch(() => said('failed'));
  }

  // After the first view: once the page has loaded and the browser is idle.
  const idle = () => ('requestIdleCallback' in window ? window.requestIdleCallback(keep, { timeout: 10000 }) : setTimeout(keep, 2000));
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
})();
