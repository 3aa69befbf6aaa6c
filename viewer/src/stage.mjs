// What the play and race pages share around their canvas: keeping the
// scene and cameras at the canvas's size, and showing an error.

/** Keeps `scene` and `cameras` at `canvas`'s size as it changes. */
export function fitStage(canvas, scene, cameras) {
  const fit = () => {
    const { clientWidth: w, clientHeight: h } = canvas;
    if (w === 0 || h === 0) return;
    scene.resize(w, h);
    cameras.resize(w, h);
  };
  new ResizeObserver(fit).observe(canvas);
  fit();
}

/** Shows `e` in the page's `#error` box and returns its text. */
export function showError(e) {
  const box = /** @type {HTMLElement} */ (document.querySelector('#error'));
  box.textContent = e?.message ? String(e.message) : String(e);
  box.hidden = false;
  return box.textContent;
}
