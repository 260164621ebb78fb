// The course's service worker (served as /sw.js). build/service-worker.mjs prepends VERSION (a hash
// of every file of the build) and PRECACHE (every page, script, style, engine and font URL of it).
// One cache per build: a page and the engine it loads always come from the same build, online or
// offline. A new build installs beside the old one and takes over only when no page of the old one
// is open (the page offers a reload), so an open page never meets an engine it was not built with.
/* global VERSION, PRECACHE */
const CACHE = `scalelab-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith('scalelab-') && name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('message', (event) => {
  if (event.data === 'activate-new-build') self.skipWaiting();
});

// "/labs/roofline?x" and "/labs/roofline/" are one page; assets are keyed by their path alone.
function cacheKey(url) {
  const path = url.pathname;
  return /\/[^/.]+$/.test(path) ? `${path}/` : path;
}

async function fromCache(url) {
  const cache = await caches.open(CACHE);
  return cache.match(cacheKey(url));
}

// Pages: the network first (a reader online sees the newest text), the build's copy offline.
async function page(request) {
  try {
    return await fetch(request);
  } catch (offline) {
    return (await fromCache(new URL(request.url))) || (await caches.open(CACHE)).match('/404.html') || Response.error();
  }
}

// Scripts, styles, the engine, fonts: content-hashed, so the build's copy is always right.
async function asset(request) {
  return (await fromCache(new URL(request.url))) || fetch(request);
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  event.respondWith(request.mode === 'navigate' ? page(request) : asset(request));
});
