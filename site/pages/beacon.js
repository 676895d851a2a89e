/*
 * The site analytics beacon (spec: Other emitted records, Beacon rules, Limits). Plain script, no
 * build step, no cookie. Include it once:
 *
 *   <script src="/beacon.js" data-endpoint="https://control-plane.example/v1/site/events" defer></script>
 *
 * One `page_landed` per page load; `signup_reached` and `contact_requested` from elements carrying
 * data-af-event (a click, or a form's submit) or from window.afAnalytics.track(name).
 * Sends nothing for Global Privacy Control, Do Not Track, crawlers and driven browsers
 * (navigator.webdriver), or after ?af-analytics=off (remembered in this browser until ?af-analytics=on).
 * The session identifier lives in tab storage and ends after 30 minutes idle or 24 hours. The referrer,
 * URL and query never leave the browser: they are reduced here to a channel, a page shape and a
 * campaign identifier. The queue is flushed every 3 seconds (batches of at most 20) and on page exit
 * (keepalive fetch, else sendBeacon); a server or network failure is retried with capped, jittered
 * exponential backoff; a 4xx answer is never retried.
 * data-flush-ms and data-retry-base-ms shorten the timings (tests only).
 */
(function () {
  "use strict";
  var script = document.currentScript;
  var endpoint = script && script.getAttribute("data-endpoint");
  if (!endpoint || window.afAnalytics) return;

  var SWITCH_KEY = "af-analytics";
  var SESSION_KEY = "af-analytics-session";
  var EVENTS = { page_landed: 1, signup_reached: 1, contact_requested: 1 };
  var FLUSH_MS = Number(script.getAttribute("data-flush-ms")) || 3000;
  var RETRY_BASE_MS = Number(script.getAttribute("data-retry-base-ms")) || 1000;
  var RETRY_CAP_MS = RETRY_BASE_MS * 64;
  var BATCH = 20;
  var IDLE_MS = 30 * 60 * 1000;
  var LIFETIME_MS = 24 * 60 * 60 * 1000;
  var CRAWLER = /bot|crawl|spider|slurp|headless|lighthouse|pagespeed|prerender|preview|facebookexternalhit|embedly|phantomjs|puppeteer|playwright/i;

  var state = { enabled: false, reason: null, queue: [], attempts: 0, retryDelays: [], dropped: 0, sent: 0 };
  window.afAnalytics = {
    state: function () {
      return JSON.parse(JSON.stringify(state));
    },
    track: function () {},
  };

  // The per-browser switch: read from the address, remembered in local storage.
  try {
    var asked = new URLSearchParams(location.search).get(SWITCH_KEY);
    if (asked === "off") localStorage.setItem(SWITCH_KEY, "off");
    else if (asked === "on") localStorage.removeItem(SWITCH_KEY);
  } catch (e) {
    /* storage blocked: the switch cannot be remembered */
  }

  function disabledBecause() {
    try {
      if (localStorage.getItem(SWITCH_KEY) === "off") return "switched_off";
    } catch (e) {
      /* fall through */
    }
    if (navigator.globalPrivacyControl === true) return "global_privacy_control";
    if (navigator.doNotTrack === "1" || window.doNotTrack === "1" || navigator.msDoNotTrack === "1") return "do_not_track";
    if (navigator.webdriver === true) return "driven_browser";
    if (CRAWLER.test(navigator.userAgent || "")) return "crawler";
    return null;
  }
  state.reason = disabledBecause();
  if (state.reason) return;
  state.enabled = true;

  function randomId() {
    if (crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map
      .call(b, function (x) {
        return (x + 256).toString(16).slice(1);
      })
      .join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  /** The tab's session: new after 30 minutes idle or 24 hours, whichever comes first. */
  function session() {
    var now = Date.now();
    var current = null;
    try {
      current = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    } catch (e) {
      current = null;
    }
    if (!current || now - current.last > IDLE_MS || now - current.started > LIFETIME_MS)
      current = { id: randomId().replace(/-/g, ""), started: now, last: now };
    current.last = now;
    try {
      sessionStorage.setItem(SESSION_KEY, JSON.stringify(current));
    } catch (e) {
      /* kept for this page only */
    }
    return current.id;
  }

  var SEARCH = /(^|\.)(google|bing|duckduckgo|yahoo|baidu|yandex|ecosia|qwant|startpage|kagi|search\.brave)\./;
  var SOCIAL =
    /(^|\.)(twitter\.com|x\.com|t\.co|linkedin\.com|lnkd\.in|facebook\.com|instagram\.com|reddit\.com|news\.ycombinator\.com|youtube\.com|mastodon\.[a-z]+|bsky\.app|threads\.net)$/;
  var EMAIL = /(^|\.)(mail\.[a-z.]+|outlook\.[a-z.]+)$/;

  /** The channel: where the visit came from, from the referrer's host and the campaign parameters only. */
  function channel(params) {
    var medium = (params.get("utm_medium") || "").toLowerCase();
    if (medium === "email" || medium === "newsletter") return "email";
    if (params.get("utm_campaign") || params.get("utm_source")) return "campaign";
    var host = "";
    try {
      host = document.referrer ? new URL(document.referrer).hostname.toLowerCase() : "";
    } catch (e) {
      host = "";
    }
    if (!host) return "direct";
    if (host === location.hostname) return "internal";
    if (SEARCH.test(host)) return "search";
    if (SOCIAL.test(host)) return "social";
    if (EMAIL.test(host)) return "email";
    return "referral";
  }

  /** The page shape: the path, lower case, with anything that looks like an identifier as :id. */
  function pageShape() {
    var parts = location.pathname
      .toLowerCase()
      .split("/")
      .filter(Boolean)
      .slice(0, 8)
      .map(function (part) {
        try {
          part = decodeURIComponent(part);
        } catch (e) {
          return ":id";
        }
        if (/^\d+$/.test(part) || /^[0-9a-f-]{8,}$/.test(part) || /\d{4,}/.test(part)) return ":id";
        if (!/^[a-z0-9][a-z0-9._-]{0,39}$/.test(part)) return ":id";
        return part;
      });
    var shape = "/" + parts.join("/");
    return shape.length > 120 ? "/" : shape;
  }

  function campaign(params) {
    var raw = (params.get("utm_campaign") || "")
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "")
      .slice(0, 64);
    return raw || null;
  }

  var params = new URLSearchParams(location.search);
  var context = { channel: channel(params), page: pageShape(), campaign: campaign(params) };

  function track(name) {
    if (!EVENTS[name]) return;
    var props = { channel: context.channel, page: context.page };
    if (context.campaign) props.campaign = context.campaign;
    state.queue.push({ id: randomId(), name: name, session: session(), props: props });
  }
  window.afAnalytics.track = track;

  var waitUntil = 0;
  var inFlight = false;

  function backoff() {
    var delay = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * Math.pow(2, state.attempts));
    delay = Math.round(delay / 2 + Math.random() * (delay / 2));
    state.attempts += 1;
    state.retryDelays.push(delay);
    waitUntil = Date.now() + delay;
    setTimeout(flush, delay);
  }

  function flush() {
    if (inFlight || state.queue.length === 0 || Date.now() < waitUntil) return;
    var batch = state.queue.splice(0, BATCH);
    inFlight = true;
    fetch(endpoint, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ events: batch }),
    }).then(
      function (response) {
        inFlight = false;
        if (response.status >= 500) {
          state.queue = batch.concat(state.queue);
          backoff();
          return;
        }
        // 2xx: done. 4xx: this batch will never be accepted as it is; drop it, never retry.
        state.attempts = 0;
        if (response.ok) state.sent += batch.length;
        else state.dropped += batch.length;
        if (state.queue.length > 0) flush();
      },
      function () {
        inFlight = false;
        state.queue = batch.concat(state.queue);
        backoff();
      },
    );
  }

  /** Page exit: everything left goes now, in requests the browser finishes after the page is gone. */
  function flushOnExit() {
    while (state.queue.length > 0) {
      var body = JSON.stringify({ events: state.queue.splice(0, BATCH) });
      var sent = false;
      try {
        fetch(endpoint, {
          method: "POST",
          mode: "cors",
          credentials: "omit",
          keepalive: true,
          headers: { "content-type": "application/json" },
          body: body,
        }).catch(function () {});
        sent = true;
      } catch (e) {
        sent = false;
      }
      if (!sent && navigator.sendBeacon) navigator.sendBeacon(endpoint, new Blob([body], { type: "application/json" }));
    }
  }

  document.addEventListener(
    "click",
    function (event) {
      var target = event.target && event.target.closest && event.target.closest("[data-af-event]");
      if (target && target.tagName !== "FORM") track(target.getAttribute("data-af-event"));
    },
    true,
  );
  document.addEventListener(
    "submit",
    function (event) {
      var form = event.target;
      if (form && form.getAttribute && form.getAttribute("data-af-event")) track(form.getAttribute("data-af-event"));
    },
    true,
  );
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") flushOnExit();
  });
  window.addEventListener("pagehide", flushOnExit);

  track("page_landed");
  setInterval(flush, FLUSH_MS);
})();
