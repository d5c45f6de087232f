/* Hearth website tracker (served as /t.js): <script src="https://HEARTH/t.js" data-key="pk_..." async></script> */
(function () {
  'use strict';
  var script = document.currentScript;
  var key = script && script.getAttribute('data-key');
  var stub = window.hearth;
  if (!key || (stub && stub.loaded)) return;
  var base = new URL('community/v1/t/' + encodeURIComponent(key) + '/', script.src);
  var STORE = 'hearth_aid';
  // Do Not Track and Global Privacy Control: nothing is sent and nothing is stored in the browser.
  var optedOut = navigator.doNotTrack === '1' || window.doNotTrack === '1' || navigator.globalPrivacyControl === true;

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var id = '';
    for (var i = 0; i < 32; i++) id += Math.floor(Math.random() * 16).toString(16);
    return id;
  }

  // First-party: localStorage of the site's origin, else a cookie of the site, else this page's memory.
  var memory = null;
  function anonymousId() {
    try {
      var stored = localStorage.getItem(STORE);
      if (!stored) localStorage.setItem(STORE, (stored = newId()));
      return stored;
    } catch {
      var match = document.cookie.match(/(?:^|; )hearth_aid=([^;]+)/);
      if (match) return match[1];
      memory = memory || newId();
      document.cookie = STORE + '=' + memory + '; path=/; max-age=31536000; SameSite=Lax' + (location.protocol === 'https:' ? '; Secure' : '');
      return memory;
    }
  }

  // A string body goes as text/plain: no CORS preflight, and the beacon survives the page being left.
  function send(path, body) {
    var url = base + path;
    var text = JSON.stringify(body);
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(url, text)) return;
    } catch {
      /* fall through to fetch */
    }
    if (window.fetch)
      fetch(url, { method: 'POST', body: text, keepalive: true, mode: 'no-cors', credentials: 'omit', headers: { 'Content-Type': 'text/plain' } });
  }

  var last = null;
  function pageview() {
    var url = location.href.split('#')[0];
    if (url === last) return;
    last = url;
    send('pageview', { url: url, anonymousId: anonymousId() });
  }

  function hearth(command, options) {
    if (optedOut) return;
    if (command === 'pageview') {
      last = null;
      pageview();
    } else if (command === 'identify' && options && options.email) {
      // The signature comes from the site's backend, which alone holds the tracker's identify secret.
      var body = { anonymousId: anonymousId(), email: String(options.email) };
      if (options.signature) body.signature = String(options.signature);
      send('identify', body);
    }
  }
  hearth.loaded = true;
  var queued = (stub && stub.q) || [];
  window.hearth = hearth;
  if (optedOut) return;

  // Single-page apps: a navigation by history.pushState or replaceState, or back and forward, is a page view.
  ['pushState', 'replaceState'].forEach(function (name) {
    var original = history[name];
    history[name] = function () {
      var result = original.apply(this, arguments);
      pageview();
      return result;
    };
  });
  window.addEventListener('popstate', pageview);
  pageview();
  for (var i = 0; i < queued.length; i++) hearth.apply(null, queued[i]);
})();
