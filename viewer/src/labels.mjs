// A label over every car in the 3D view (its number, and its driver's
// name when the replay names drivers), the followed car's
// highlighted: which car is which, from any camera. Each frame a label is
// moved to where its car's roof projects; cars behind the camera, off the
// screen or out of the race have none.

import * as THREE from 'three';
import { carTitle } from './scene_data.mjs';

/** Height of a label above the car's centre of mass, m. */
const ABOVE = 1.6;

export class CarLabels {
  /** `root` is the stage, over the canvas. */
  constructor(root) {
    this.box = document.createElement('div');
    this.box.id = 'labels';
    root.append(this.box);
    this.point = new THREE.Vector3();
    this.labels = [];
  }

  /** One label per car. */
  setCars(cars) {
    this.labels = cars.map((car, k) => {
      const label = document.createElement('span');
      label.className = 'car-label';
      label.dataset.car = String(k);
      // The number, and the driver's name when the replay names one.
      label.textContent = car.driver ? `${k} ${car.driver}` : String(k);
      label.title = `car ${carTitle(car, k)}`;
      return label;
    });
    this.box.replaceChildren(...this.labels);
  }

  /** Places the labels for `poses` seen by `camera` on a `width` ×
   * `height` view; returns how many show. */
  place(poses, camera, width, height, followed) {
    let shown = 0;
    this.labels.forEach((label, k) => {
      const pose = poses[k];
      let visible = !!pose && !Number.isNaN(pose[0]);
      if (visible) {
        this.point.set(pose[0], pose[1], pose[2] + ABOVE).project(camera);
        visible = this.point.z < 1 && Math.abs(this.point.x) <= 1 && Math.abs(this.point.y) <= 1;
      }
      label.hidden = !visible;
      label.classList.toggle('followed', k === followed);
      if (!visible) return;
      const x = ((this.point.x + 1) / 2) * width;
      const y = ((1 - this.point.y) / 2) * height;
      label.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(-50%, -100%)`;
      shown += 1;
    });
    return shown;
  }
}
