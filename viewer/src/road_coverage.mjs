// The measure behind "the road is never hidden": an id picture of the
// scene's surfaces, in which the road a camera should see is compared
// with the road it is drawn as. Two surfaces fighting in depth (the road
// and the grass under it, a road drawn twice) show up here as road
// pixels of another surface. Used by the Chromium checks through
// `Scene.roadCoverage`; it draws off screen and leaves the scene as it
// found it.

import * as THREE from 'three';

/** The flat colour each surface layer (`object.userData.layer`) is drawn
 * in; anything else (cars, ghosts, lights) is hidden. */
const LAYER_COLOURS = {
  backdrop: 0x0000ff,
  ground: 0x00ffff,
  road: 0xff0000,
  kerb: 0x00ff00,
  marking: 0xffff00,
};

/** Size of the id picture, px: a quarter of the page's usual view each
 * way is enough to see a surface missing and keeps a thousand frames
 * quick on a CPU renderer. */
const WIDTH = 320;
const HEIGHT = 200;

/**
 * Draws the scene's surfaces twice from `camera`: the road alone (what
 * the camera should see of it) and every surface together (what it
 * does see). Returns `{ road, missing }`: the road's pixels in the first
 * picture, and how many of them the second shows as neither road nor a
 * marking or kerb on it.
 */
export function roadCoverage(renderer, scene, camera) {
  target ??= new THREE.WebGLRenderTarget(WIDTH, HEIGHT);
  const saved = [];
  const layerOf = new Map();
  const { fog, background } = scene;
  scene.fog = null;
  scene.background = new THREE.Color(0x000000);
  scene.traverse((object) => {
    if (object === scene) return;
    const layer = object.userData.layer;
    saved.push([object, object.visible, object.material]);
    if (LAYER_COLOURS[layer] === undefined) {
      // A group of a car is hidden with its parts; lights stay on.
      if (!object.isLight) object.visible = false;
      return;
    }
    layerOf.set(object, layer);
    object.material = idMaterial(object, LAYER_COLOURS[layer]);
  });
  const aspect = camera.aspect;
  camera.aspect = WIDTH / HEIGHT;
  camera.updateProjectionMatrix();
  pixels ??= new Uint8Array(WIDTH * HEIGHT * 4);
  const draw = (only) => {
    for (const [object, layer] of layerOf) object.visible = only === undefined || layer === only;
    renderer.setRenderTarget(target);
    renderer.render(scene, camera);
    renderer.readRenderTargetPixels(target, 0, 0, WIDTH, HEIGHT, pixels);
    renderer.setRenderTarget(null);
  };
  try {
    draw('road');
    const expected = [];
    for (let p = 0; p < WIDTH * HEIGHT; p++) if (isColour(pixels, p, LAYER_COLOURS.road)) expected.push(p);
    draw();
    const onRoad = [LAYER_COLOURS.road, LAYER_COLOURS.kerb, LAYER_COLOURS.marking];
    const missing = expected.filter((p) => !onRoad.some((c) => isColour(pixels, p, c))).length;
    return { road: expected.length, missing };
  } finally {
    for (const [object, visible, material] of saved) {
      object.visible = visible;
      object.material = material;
    }
    scene.fog = fog;
    scene.background = background;
    camera.aspect = aspect;
    camera.updateProjectionMatrix();
  }
}

/** The id picture's target and each surface's id material, kept between
 * calls (a check measures a thousand frames). */
let target;
let pixels;
const idMaterials = new WeakMap();

/** An unlit material of one flat colour that tests depth as `object`'s
 * own material does (the backdrop is drawn without it). */
function idMaterial(object, colour) {
  const own = object.material;
  if (idMaterials.has(own)) return idMaterials.get(own);
  const shared = { color: colour, fog: false, depthTest: own.depthTest, depthWrite: own.depthWrite };
  const material = object.isLine ? new THREE.LineBasicMaterial(shared) : new THREE.MeshBasicMaterial({ ...shared, side: own.side });
  idMaterials.set(own, material);
  return material;
}

function isColour(pixels, p, colour) {
  const r = (colour >> 16) & 0xff;
  const g = (colour >> 8) & 0xff;
  const b = colour & 0xff;
  return (
    Math.abs(pixels[4 * p] - r) < 64 && Math.abs(pixels[4 * p + 1] - g) < 64 && Math.abs(pixels[4 * p + 2] - b) < 64
  );
}
