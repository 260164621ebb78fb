// Registers the service worker (/sw.js, from ./service-worker.js) that keeps the course readable
// offline once loaded. When a newer build has installed beside the one this page runs, it offers a
// reload instead of swapping the engine under an open page.
export function registerOffline(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const register = () =>
    navigator.serviceWorker
      .register('/sw.js')
      .then((reg) => reg.addEventListener('updatefound', () => watchInstall(reg.installing)))
      // Without a service worker the course still works online; there is nothing to tell the reader.
      .catch(() => undefined);
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}

function watchInstall(next: ServiceWorker | null): void {
  next?.addEventListener('statechange', () => {
    if (next.state === 'installed' && navigator.serviceWorker.controller) offerReload(next);
  });
}

function offerReload(next: ServiceWorker): void {
  const bar = document.createElement('div');
  bar.className = 'update-bar';
  bar.setAttribute('role', 'status');
  bar.textContent = 'A new version of the course is ready. ';
  const reload = document.createElement('button');
  reload.type = 'button';
  reload.textContent = 'Reload';
  reload.addEventListener('click', () => {
    navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
    next.postMessage('activate-new-build');
  });
  bar.append(reload);
  document.body.append(bar);
}
