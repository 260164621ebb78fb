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

// Cross-origin isolation (COOP + COEP) lets a page share memory with its Workers, which
// WebAssembly threads need (the measured decode run's CPU path). `scalelab serve` sends both headers
// itself; a static host may not, so every answer this worker gives carries them (the same three
// headers the server sends). An opaque answer or a redirect passes through untouched.
const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
function isolated(response) {
  if (!response || response.status === 0 || response.type === 'opaqueredirect' ||
      Object.keys(ISOLATION).every((h) => response.headers.has(h))) return response;
  const headers = new Headers(response.headers);
  for (const [h, v] of Object.entries(ISOLATION)) if (!headers.has(h)) headers.set(h, v);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
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
  event.respondWith((request.mode === 'navigate' ? page(request) : asset(request)).then(isolated));
});
