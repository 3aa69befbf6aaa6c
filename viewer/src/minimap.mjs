// A map of the whole track in a corner of the view, with every car as a
// dot in its colour and the followed car ringed: where the race is at a
// glance. The track is drawn once per recording into its own canvas; each
// frame only copies it and draws the dots.

import { CAR_COLOURS, colourOf } from './scene.mjs';

const SIZE = 180;
const MARGIN = 10;

export class Minimap {
  /** `root` is the stage. */
  constructor(root) {
    this.canvas = document.createElement('canvas');
    this.canvas.id = 'minimap';
    this.canvas.width = SIZE;
    this.canvas.height = SIZE;
    this.canvas.hidden = true;
    root.append(this.canvas);
    this.track = null;
  }

  /** The track to draw (a recording's `meta.track` or `meta.road`), or
   * none: no map. */
  setTrack(track) {
    this.canvas.hidden = !track;
    this.track = null;
    if (!track) return;
    const pts = track.points;
    let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < pts.length; i += 2) {
      minX = Math.min(minX, pts[i]);
      maxX = Math.max(maxX, pts[i]);
      minY = Math.min(minY, pts[i + 1]);
      maxY = Math.max(maxY, pts[i + 1]);
    }
    const scale = (SIZE - 2 * MARGIN) / Math.max(maxX - minX, maxY - minY, 1);
    // World x to the right, world y up (the map as seen from above).
    const offsetX = (SIZE - (maxX - minX) * scale) / 2;
    const offsetY = (SIZE - (maxY - minY) * scale) / 2;
    this.toMap = (x, y) => [offsetX + (x - minX) * scale, SIZE - (offsetY + (y - minY) * scale)];
    this.road = document.createElement('canvas');
    this.road.width = SIZE;
    this.road.height = SIZE;
    const g = this.road.getContext('2d');
    g.fillStyle = 'rgba(0,0,0,.45)';
    g.fillRect(0, 0, SIZE, SIZE);
    g.strokeStyle = '#d8d8d8';
    g.lineWidth = Math.max(2, track.width * scale);
    g.lineJoin = 'round';
    g.beginPath();
    for (let i = 0; i <= pts.length / 2; i++) {
      const k = (i % (pts.length / 2)) * 2;
      const [u, v] = this.toMap(pts[k], pts[k + 1]);
      if (i === 0) g.moveTo(u, v);
      else g.lineTo(u, v);
    }
    g.stroke();
    // The line, where distance 0 is.
    const [u, v] = this.toMap(pts[0], pts[1]);
    g.fillStyle = '#fff';
    g.fillRect(u - 2, v - 2, 4, 4);
    this.track = track;
  }

  /** Draws the cars at `poses` (one 8-value pose per car; NaN for a car
   * out of the race), ringing car `followed`. Returns the dots drawn. */
  draw(poses, followed) {
    if (!this.track) return 0;
    const g = this.canvas.getContext('2d');
    g.clearRect(0, 0, SIZE, SIZE);
    g.drawImage(this.road, 0, 0);
    let drawn = 0;
    // The followed car last, over the others.
    const order = [...poses.keys()].filter((k) => k !== followed).concat(followed < poses.length ? [followed] : []);
    for (const car of order) {
      const pose = poses[car];
      if (!pose || Number.isNaN(pose[0])) continue;
      const [u, v] = this.toMap(pose[0], pose[1]);
      g.beginPath();
      g.arc(u, v, car === followed ? 5 : 3.5, 0, 2 * Math.PI);
      g.fillStyle = `#${colourOf(car, CAR_COLOURS).toString(16).padStart(6, '0')}`;
      g.fill();
      if (car === followed) {
        g.lineWidth = 2;
        g.strokeStyle = '#fff';
        g.stroke();
      }
      drawn += 1;
    }
    this.drawn = drawn;
    return drawn;
  }
}
