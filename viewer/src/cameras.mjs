// The cameras (G70 guide §9): chase (behind and above the car), cockpit
// (the driver's eye, looking along the body), orbit (around the car, mouse
// to turn and zoom), free (fly over the track with the mouse, from above
// and behind the car) and TV (the
// trackside post nearest the car, zooming to keep it framed). A camera is
// a pure function of the car's pose except for the user's mouse input, so
// the same time always gives the same picture.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

export const CAMERA_MODES = ['chase', 'cockpit', 'orbit', 'free', 'tv'];

/** Spacing of the TV posts along the track (m), their distance outside
 * the track edge (m) and their height (m). */
const TV_SPACING = 120;
const TV_SETBACK = 14;
const TV_HEIGHT = 7;

export class Cameras {
  constructor(canvas) {
    this.camera = new THREE.PerspectiveCamera(60, 16 / 9, 0.1, 5000);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, canvas);
    this.controls.enabled = false;
    this.mode = 'chase';
    this.posts = [];
    this.offset = new THREE.Vector3();
    this.forward = new THREE.Vector3();
    this.target = new THREE.Vector3();
    this.euler = new THREE.Euler(0, 0, 0, 'ZYX');
    this.lastTarget = null;
  }

  resize(width, height) {
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
  }

  /** TV posts along the track's centre line, outside its edge. */
  setTrack(track) {
    this.posts = [];
    if (!track) return;
    const pts = track.points;
    const n = pts.length / 2;
    let travelled = 0;
    let side = 1;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      const dx = pts[2 * j] - pts[2 * i];
      const dy = pts[2 * j + 1] - pts[2 * i + 1];
      const len = Math.hypot(dx, dy);
      if (travelled <= 0) {
        const off = side * (track.width / 2 + TV_SETBACK);
        // Posts stand TV_HEIGHT above the centre line's height there.
        const z = (track.elevation?.[i] ?? 0) + TV_HEIGHT;
        this.posts.push(new THREE.Vector3(pts[2 * i] - (dy / len) * off, pts[2 * i + 1] + (dx / len) * off, z));
        travelled = TV_SPACING;
        side = -side;
      }
      travelled -= len;
    }
    this.track = track;
  }

  setMode(mode) {
    if (!CAMERA_MODES.includes(mode)) throw new Error(`unknown camera ${mode}`);
    this.mode = mode;
    this.controls.enabled = mode === 'orbit' || mode === 'free';
    this.lastTarget = null;
  }

  /** Points the camera for the followed car's `pose`. */
  update(pose) {
    const cam = this.camera;
    const [x, y, z, yaw, pitch, roll] = pose;
    this.target.set(x, y, z);
    this.forward.set(Math.cos(yaw), Math.sin(yaw), 0);
    cam.fov = 60;
    switch (this.mode) {
      case 'chase':
        cam.position.set(x - this.forward.x * 8, y - this.forward.y * 8, z + 3);
        cam.up.set(0, 0, 1);
        cam.lookAt(x + this.forward.x * 4, y + this.forward.y * 4, z + 0.5);
        break;
      case 'cockpit': {
        // The eye: a little behind the centre of mass and above it, in
        // the body frame; the view follows the body's pitch and roll.
        this.euler.set(roll, pitch, yaw, 'ZYX');
        const q = new THREE.Quaternion().setFromEuler(this.euler);
        this.offset.set(-0.3, 0.35, 0.75).applyQuaternion(q);
        cam.position.set(x + this.offset.x, y + this.offset.y, z + this.offset.z);
        const ahead = new THREE.Vector3(20, 0, 0).applyQuaternion(q);
        cam.up.set(0, 0, 1).applyQuaternion(q);
        cam.lookAt(cam.position.x + ahead.x, cam.position.y + ahead.y, cam.position.z + ahead.z);
        cam.fov = 75;
        break;
      }
      case 'orbit': {
        // Keep the user's angle and distance, moved with the car.
        if (this.lastTarget === null) {
          cam.position.set(x - 10, y - 10, z + 6);
        } else {
          cam.position.add(this.target).sub(this.lastTarget);
        }
        this.controls.target.copy(this.target);
        this.lastTarget = this.target.clone();
        this.controls.update();
        break;
      }
      case 'free':
        // Starts behind and above the followed car, looking at it; from
        // then on the mouse flies it and the car no longer moves it.
        if (this.lastTarget === null) {
          cam.position.set(x - this.forward.x * 18, y - this.forward.y * 18, z + 9);
          this.controls.target.copy(this.target);
          this.lastTarget = this.target.clone();
        }
        this.controls.update();
        break;
      case 'tv': {
        const post = this.nearestPost(x, y);
        cam.position.copy(post);
        cam.up.set(0, 0, 1);
        cam.lookAt(x, y, z);
        // Zoom so the car keeps about the same size on screen.
        const d = post.distanceTo(this.target);
        cam.fov = Math.min(60, Math.max(8, (2 * Math.atan(12 / d) * 180) / Math.PI));
        break;
      }
      default:
        break;
    }
    cam.updateProjectionMatrix();
  }

  nearestPost(x, y) {
    if (this.posts.length === 0) return new THREE.Vector3(x - 30, y - 30, TV_HEIGHT);
    let best = this.posts[0];
    let bestD = Infinity;
    for (const p of this.posts) {
      const d = (p.x - x) ** 2 + (p.y - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = p;
      }
    }
    return best;
  }
}
