// The 3D scene: ground, the track built from its centre line and width,
// a mesh per car (body, cabin and wheels sized from the car's definition)
// and translucent ghost cars. The world is z-up in metres, as in the SDK
// (ISO 8855: x forward, y left), so poses go in without conversion.

import * as THREE from 'three';
import { roadCoverage } from './road_coverage.mjs';

/** Car colours, by car index. */
export const CAR_COLOURS = [
  0xd64541, 0x2e86de, 0x27ae60, 0xf39c12, 0x8e44ad, 0x16a085, 0xe67e22, 0x2c3e50,
  0xc0392b, 0x2980b9, 0x1abc9c, 0xf1c40f, 0x9b59b6, 0x34495e, 0xd35400, 0x7f8c8d,
];
/** Ghost colours, by ghost index. */
export const GHOST_COLOURS = [0x99ccff, 0xffcc66, 0xcc99ff, 0x99ffcc, 0xff99cc, 0xccff99, 0x66ffff, 0xffffff];

export function colourOf(index, palette = CAR_COLOURS) {
  return palette[index % palette.length];
}

export class Scene {
  constructor(canvas) {
    this.renderer = new THREE.WebGLRenderer({
      canvas,
      antialias: false,
      // Screenshots draw and read the canvas back in one task, so the
      // drawing buffer need not be kept; a logarithmic depth buffer keeps
      // the road's markings, a few centimetres above it, apart from it at
      // a distance.
      preserveDrawingBuffer: false,
      logarithmicDepthBuffer: true,
    });
    this.renderer.setPixelRatio(1);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xb8d4e8);
    // Haze: far road, grass and centre-line dashes fade into the sky, where
    // the dashes, thinner than a pixel there, would otherwise flicker.
    this.scene.fog = new THREE.Fog(0xb8d4e8, 150, 900);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x556644, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(-200, -300, 500);
    this.scene.add(sun);
    // The grass: a backdrop drawn first and never depth-tested, so it
    // cannot cover the road however close below it lies. (Drawn as a
    // depth-tested plane 5 cm under the road, its two 4 km triangles
    // hid the road in some frames: their depth, interpolated across
    // kilometres, came out above it.)
    const ground = new THREE.Mesh(
      new THREE.PlaneGeometry(4000, 4000),
      new THREE.MeshLambertMaterial({ color: 0x6f9a52, depthTest: false, depthWrite: false }),
    );
    ground.position.z = -0.05;
    ground.renderOrder = -1;
    ground.userData.layer = 'backdrop';
    this.scene.add(ground);
    this.plane = ground;
    this.cars = [];
    this.ghosts = [];
    this.euler = new THREE.Euler(0, 0, 0, 'ZYX');
    this.sight = new THREE.Vector3();
    this.toCar = new THREE.Vector3();
  }

  resize(width, height) {
    this.renderer.setSize(width, height, false);
  }

  /** Builds the track surface, its edges and the start line, on the
   * track's elevation and banking (the surface `Track::ground` builds).
   * Over a carried ground (`setGround` first), whose own triangles are
   * the road, only the centre and start lines are added: a second road
   * in the same place would fight it in depth. */
  setTrack(track) {
    // A track replaces the one drawn before (the play page previews one
    // track, then another): two roads in one place would fight in depth.
    for (const mesh of this.trackMeshes ?? []) {
      this.scene.remove(mesh);
      mesh.geometry.dispose();
      mesh.material.dispose();
    }
    this.trackMeshes = [];
    if (!track) return;
    const onGround = this.groundMesh !== undefined;
    const pts = track.points;
    const n = pts.length / 2;
    const half = track.width / 2;
    // Each side's own edge (an own track's road need not be centred on
    // its line, nor of one width); a track without edges is `width` wide.
    const reach = (i, side) => (track.edges ? track.edges[2 * i + (side > 0 ? 0 : 1)] : half);
    const elevation = track.elevation ?? new Float64Array(n);
    const banking = track.banking ?? new Float64Array(n);
    const surface = [];
    const kerbs = [];
    const edge = (i, side, extra) => {
      const j = (i + 1) % n;
      const k = (i + n - 1) % n;
      let dx = pts[2 * j] - pts[2 * k];
      let dy = pts[2 * j + 1] - pts[2 * k + 1];
      const len = Math.hypot(dx, dy) || 1;
      dx /= len;
      dy /= len;
      // Left normal of the direction of travel is (-dy, dx); a banked road
      // rises towards its right-hand edge.
      const off = side * (reach(i, side) + extra);
      const z = elevation[i] - off * Math.tan(banking[i]);
      return [pts[2 * i] - dy * off, pts[2 * i + 1] + dx * off, z];
    };
    for (let i = 0; i <= n; i++) {
      const a = i % n;
      surface.push(edge(a, 1, 0), edge(a, -1, 0));
      kerbs.push([edge(a, 1, 0), edge(a, 1, track.kerbWidth)], [edge(a, -1, 0), edge(a, -1, track.kerbWidth)]);
    }
    if (!onGround) {
      this.add(ribbon(surface, 0.0, 0x4a4a4f), 'road');
      const left = [];
      const right = [];
      for (let i = 0; i < kerbs.length; i += 2) {
        left.push(kerbs[i][1], kerbs[i][0]);
        right.push(kerbs[i + 1][0], kerbs[i + 1][1]);
      }
      // Beside the road, not over it: they share its edge only. Their
      // outer edge is the track limit (`TrackView.kerbWidth`).
      this.add(ribbon(left, 0.0, 0xe8e8e8), 'kerb');
      this.add(ribbon(right, 0.0, 0xe8e8e8), 'kerb');
    }
    // The centre line, dashed, as the AI and the lap timing see it.
    const centre = [];
    for (let i = 0; i <= n; i++) {
      centre.push(new THREE.Vector3(pts[2 * (i % n)], pts[2 * (i % n) + 1], elevation[i % n] + 0.04));
    }
    const line = new THREE.Line(
      new THREE.BufferGeometry().setFromPoints(centre),
      new THREE.LineDashedMaterial({ color: 0xd8d8d8, dashSize: 3, gapSize: 6 }),
    );
    line.computeLineDistances();
    this.add(line, 'marking');
    const start = [edge(0, 1, 0), edge(0, -1, 0)];
    const dir = [pts[2] - pts[0], pts[3] - pts[1]];
    const dl = Math.hypot(dir[0], dir[1]);
    const ahead = (p) => [p[0] + (dir[0] / dl) * 1.2, p[1] + (dir[1] / dl) * 1.2, p[2]];
    this.add(ribbon([start[0], start[1], ahead(start[0]), ahead(start[1])], 0.03, 0xffffff), 'marking');
  }

  /** Adds a surface of the ground's `layer` (backdrop, ground, road,
   * kerb, marking: what `roadCoverage` tells apart). */
  add(object, layer) {
    object.userData.layer = layer;
    this.scene.add(object);
    if (layer !== 'ground' && layer !== 'backdrop') this.trackMeshes.push(object);
  }

  /** How much of the road the camera should see is drawn as road (or
   * as a marking on it): see `road_coverage.mjs`. */
  roadCoverage(camera) {
    return roadCoverage(this.renderer, this.scene, camera);
  }

  /** Draws a game's own ground the replay carries (`CarriedGround`):
   * its triangles, each in its surface's colour (the preset table's ids;
   * grey without surfaces), with the grass plane moved below it. */
  setGround(ground) {
    if (!ground) return;
    const { positions, indices, surfaces } = ground;
    // Flat shading per triangle: every triangle gets its own three
    // vertices, so a surface's colour does not bleed into its neighbours.
    const flat = new Float32Array(indices.length * 3);
    const colours = new Float32Array(indices.length * 3);
    const colour = new THREE.Color();
    let lowest = Infinity;
    for (let t = 0; t < indices.length / 3; t++) {
      colour.setHex(SURFACE_COLOURS[surfaces?.[t] ?? 0] ?? SURFACE_COLOURS[0]);
      for (let c = 0; c < 3; c++) {
        const v = indices[3 * t + c];
        const at = 3 * (3 * t + c);
        flat.set(positions.subarray(3 * v, 3 * v + 3), at);
        colours.set([colour.r, colour.g, colour.b], at);
        lowest = Math.min(lowest, positions[3 * v + 2]);
      }
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(flat, 3));
    geometry.setAttribute('color', new THREE.BufferAttribute(colours, 3));
    geometry.computeVertexNormals();
    const mesh = new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ vertexColors: true, side: THREE.DoubleSide }));
    this.add(mesh, 'ground');
    this.groundMesh = mesh;
    this.plane.position.z = lowest - 0.5;
  }

  /** Draws a glTF scene's meshes (`TrackScene.mesh`: z-up positions,
   * triangle indices, linear base colour), its ground among them, with
   * the grass plane moved below the lowest. Each mesh is named after its
   * node; with ground among them, a track adds only its lines. */
  setSceneMeshes(meshes) {
    let lowest = Infinity;
    for (const { node, colour, positions, indices, surface } of meshes) {
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
      geometry.setIndex(new THREE.BufferAttribute(indices, 1));
      geometry.computeVertexNormals();
      const colourOf = new THREE.Color().setRGB(colour[0], colour[1], colour[2], THREE.LinearSRGBColorSpace);
      const mesh = new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ color: colourOf, side: THREE.DoubleSide }));
      mesh.name = node;
      // Scenery too is the ground's layer: it stays when a track is set.
      this.add(mesh, 'ground');
      if (surface !== null) this.groundMesh = mesh;
      for (let z = 2; z < positions.length; z += 3) lowest = Math.min(lowest, positions[z]);
    }
    if (Number.isFinite(lowest)) this.plane.position.z = lowest - 0.5;
  }

  /** One mesh per car of `cars` (the worker's descriptions), replacing
   * those of an earlier call (cars joined a live race). */
  setCars(cars) {
    for (const mesh of this.cars ?? []) this.scene.remove(mesh.group);
    this.cars = cars.map((car, k) => {
      const mesh = carMesh(car, colourOf(k), 1);
      this.scene.add(mesh.group);
      return mesh;
    });
  }

  /** One translucent mesh per ghost, shaped like `car`. */
  setGhosts(count, car) {
    for (const g of this.ghosts) this.scene.remove(g.group);
    this.ghosts = Array.from({ length: count }, (_, k) => {
      const mesh = carMesh(car, colourOf(k, GHOST_COLOURS), 0.4);
      this.scene.add(mesh.group);
      return mesh;
    });
  }

  /** Places a car (or ghost) mesh at a pose `[x, y, z, yaw, pitch, roll,
   * steer, speed]`; hides it for a NaN pose (a car the recording removed). */
  place(mesh, pose) {
    mesh.group.visible = !Number.isNaN(pose[0]);
    if (!mesh.group.visible) return;
    mesh.group.position.set(pose[0], pose[1], pose[2]);
    this.euler.set(pose[5], pose[4], pose[3], 'ZYX');
    mesh.group.quaternion.setFromEuler(this.euler);
    for (const wheel of mesh.steered) wheel.rotation.z = pose[6];
  }

  /** Draws the cars that stand between the camera and car `followed`
   * see-through, so the followed car is never hidden behind another. */
  seeThrough(camera, followed) {
    const target = this.cars[followed]?.group;
    const eye = camera.position;
    const span = target ? eye.distanceTo(target.position) : 0;
    for (const [k, mesh] of this.cars.entries()) {
      let hides = false;
      // With the followed car not drawn (the cockpit camera, a removed
      // car) nothing stands in front of it.
      if (target?.visible && k !== followed && mesh.group.visible) {
        // Along the line of sight (from the eye) and off it, m.
        const along = this.sight.subVectors(target.position, eye).normalize().dot(this.toCar.subVectors(mesh.group.position, eye));
        const off = this.toCar.addScaledVector(this.sight, -along).length();
        hides = along > 0 && along < span - 1 && off < SEE_THROUGH_RADIUS;
      }
      if (hides !== mesh.seeThrough) {
        mesh.seeThrough = hides;
        for (const material of mesh.materials) {
          material.transparent = hides;
          material.opacity = hides ? 0.3 : 1;
          material.depthWrite = !hides;
          material.needsUpdate = true;
        }
      }
    }
  }

  render(camera) {
    this.renderer.render(this.scene, camera);
  }
}

/** How close to the line of sight another car must be to hide the
 * followed one (about a car's half-diagonal with its wheels), m. */
const SEE_THROUGH_RADIUS = 2.5;

/** A triangle strip through pairs of `[x, y, z]` points, lifted by
 * `lift` (so edges and lines draw above the road). */
/** A colour per surface id of the preset table (`SurfaceTable::presets`):
 * dry asphalt, wet asphalt, gravel, grass, sand, snow, ice, kerb. */
const SURFACE_COLOURS = [0x55555a, 0x3b3f48, 0x9c8b6e, 0x6f9a52, 0xd8c38e, 0xf2f4f7, 0xcfe3ef, 0xc8c8c8];

function ribbon(pairs, lift, colour) {
  const positions = new Float32Array(pairs.length * 3);
  pairs.forEach(([x, y, z], i) => positions.set([x, y, z + lift], i * 3));
  const index = [];
  for (let i = 0; i + 3 < pairs.length; i += 2) index.push(i, i + 1, i + 2, i + 1, i + 3, i + 2);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  geometry.setIndex(index);
  geometry.computeVertexNormals();
  return new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ color: colour, side: THREE.DoubleSide }));
}

/** A car: body and cabin boxes and four wheels, around the centre of
 * mass (the pose's origin). */
function carMesh(car, colour, opacity) {
  const transparent = opacity < 1;
  const paint = new THREE.MeshLambertMaterial({ color: colour, transparent, opacity, depthWrite: !transparent });
  const dark = new THREE.MeshLambertMaterial({ color: 0x1b1b1b, transparent, opacity, depthWrite: !transparent });
  const group = new THREE.Group();
  const rearAxle = -(car.wheelbase - car.cgToFront);
  const length = car.wheelbase + 2 * car.wheelRadius + 0.5;
  const width = Math.max(car.trackFront, car.trackRear) + 0.2;
  const axleZ = car.wheelRadius - car.cgHeight;
  const bodyHeight = Math.max(0.35, car.cgHeight * 0.9);
  const body = new THREE.Mesh(new THREE.BoxGeometry(length, width, bodyHeight), paint);
  body.position.set((car.cgToFront + rearAxle) / 2, 0, axleZ + bodyHeight / 2 + 0.05);
  group.add(body);
  const cabin = new THREE.Mesh(new THREE.BoxGeometry(length * 0.45, width * 0.85, bodyHeight * 0.8), paint);
  cabin.position.set(body.position.x - length * 0.08, 0, body.position.z + bodyHeight * 0.9);
  group.add(cabin);
  const steered = [];
  for (const [x, track, front] of [[car.cgToFront, car.trackFront, true], [rearAxle, car.trackRear, false]]) {
    for (const side of [1, -1]) {
      const hub = new THREE.Group();
      hub.position.set(x, (side * track) / 2, axleZ);
      const tyre = new THREE.Mesh(new THREE.CylinderGeometry(car.wheelRadius, car.wheelRadius, 0.22, 16), dark);
      hub.add(tyre);
      group.add(hub);
      if (front) steered.push(hub);
    }
  }
  group.visible = false;
  return { group, steered, materials: [paint, dark], seeThrough: false };
}
