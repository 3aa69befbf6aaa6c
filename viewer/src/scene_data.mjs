// What the scene draws a car from, read off its definition (the JSON
// the core writes): shared by the viewer's and the play page's workers,
// which have no three.js and no DOM.

/** The dimensions `Scene.setCars` builds a car's mesh from. */
export function describeCar(d) {
  return {
    name: d.name,
    wheelbase: d.chassis.wheelbase,
    cgToFront: d.chassis.cg_to_front_axle,
    cgHeight: d.chassis.cg_height,
    trackFront: d.chassis.track.front,
    trackRear: d.chassis.track.rear,
    wheelRadius: d.wheels.front.radius,
  };
}
