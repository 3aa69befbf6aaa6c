"""Writes a racing circuit as a glTF 2.0 scene with pygltflib (PyPI), the
way a game's art pipeline would hand one over: a tool that is not skidpad,
in y-up metres, with surfaces named by their materials.

The circuit is a stadium: two 200 m straights joined by half circles of
60 m radius (centre line 200 * 2 + 2 * pi * 60 = 776.99 m), on a gentle
hill (3 m up and down over a lap). Across the road, from right to left:
grass 10 m, kerb 1 m, tarmac 4.5 m right of the line and 5.5 m left of
it, kerb 1 m, then grass 10 m outside the bends and a gravel trap inside.

Nodes, under a root node moved by (100, 0, -50) so that transforms count:
- `road` (material `Tarmac`), `kerbs` (`Kerb`), `verge` (`Grass.001`);
- `gravel_trap`, whose mesh is named `gravel_trap` and has no material;
- `grandstand`: a box with material `Concrete`, drawn but not ground;
- `centre_line`: a LINE_LOOP through 64 evenly spaced control points;
- `start` 30 m along the line, `sector.1` and `sector.2` at a third and
  two thirds of the lap.

Usage: write_scene.py OUT_DIR [--grid N]
Writes OUT_DIR/stadium.glb, and OUT_DIR/stadium.gltf with its buffer in
OUT_DIR/stadium.bin. With --grid N, writes OUT_DIR/grid.glb instead: the
same circuit's line on a flat tarmac square of 2 * N * N triangles (the
importer's figures).
"""

import math
import os
import struct
import sys

import pygltflib as g

STRAIGHT = 200.0
RADIUS = 60.0
LENGTH = 2 * STRAIGHT + 2 * math.pi * RADIUS
RIGHT, LEFT = 4.5, 5.5
KERB, GRASS = 1.0, 10.0
HILL = 3.0


def centre(s):
    """The centre line at s m from its first point: (x, y, z) and the unit
    direction (dx, dy), in skidpad's z-up axes, counter-clockwise."""
    s %= LENGTH
    half = math.pi * RADIUS
    z = HILL * math.sin(2 * math.pi * s / LENGTH)
    if s < STRAIGHT:
        return (s - STRAIGHT / 2, -RADIUS, z), (1.0, 0.0)
    s -= STRAIGHT
    if s < half:
        a = -math.pi / 2 + s / RADIUS
        return (STRAIGHT / 2 + RADIUS * math.cos(a), RADIUS * math.sin(a), z), (
            -math.sin(a),
            math.cos(a),
        )
    s -= half
    if s < STRAIGHT:
        return (STRAIGHT / 2 - s, RADIUS, z), (-1.0, 0.0)
    s -= STRAIGHT
    a = math.pi / 2 + s / RADIUS
    return (-STRAIGHT / 2 + RADIUS * math.cos(a), RADIUS * math.sin(a), z), (
        -math.sin(a),
        math.cos(a),
    )


def y_up(p):
    """skidpad's (x, y, z) as glTF's y-up (x, z, -y)."""
    return (p[0], p[2], -p[1])


class Writer:
    """Meshes, accessors and nodes into one buffer."""

    def __init__(self):
        self.blob = bytearray()
        self.gltf = g.GLTF2(asset=g.Asset(generator="skidpad tests: write_scene.py (pygltflib)"))

    def view(self, data, target):
        while len(self.blob) % 4:
            self.blob.append(0)
        self.gltf.bufferViews.append(
            g.BufferView(buffer=0, byteOffset=len(self.blob), byteLength=len(data), target=target)
        )
        self.blob.extend(data)
        return len(self.gltf.bufferViews) - 1

    def positions(self, points):
        data = b"".join(struct.pack("<3f", *y_up(p)) for p in points)
        lo = [min(y_up(p)[k] for p in points) for k in range(3)]
        hi = [max(y_up(p)[k] for p in points) for k in range(3)]
        self.gltf.accessors.append(
            g.Accessor(
                bufferView=self.view(data, g.ARRAY_BUFFER),
                componentType=g.FLOAT,
                count=len(points),
                type=g.VEC3,
                min=lo,
                max=hi,
            )
        )
        return len(self.gltf.accessors) - 1

    def indices(self, triangles):
        flat = [i for t in triangles for i in t]
        data = struct.pack("<%dI" % len(flat), *flat)
        self.gltf.accessors.append(
            g.Accessor(
                bufferView=self.view(data, g.ELEMENT_ARRAY_BUFFER),
                componentType=g.UNSIGNED_INT,
                count=len(flat),
                type=g.SCALAR,
            )
        )
        return len(self.gltf.accessors) - 1

    def material(self, name, colour):
        self.gltf.materials.append(
            g.Material(
                name=name,
                pbrMetallicRoughness=g.PbrMetallicRoughness(baseColorFactor=colour),
            )
        )
        return len(self.gltf.materials) - 1

    def mesh(self, name, parts, mode=g.TRIANGLES):
        """A mesh of (points, triangles or None, material or None) parts."""
        primitives = []
        for points, triangles, material in parts:
            primitive = g.Primitive(attributes=g.Attributes(POSITION=self.positions(points)), mode=mode)
            if triangles is not None:
                primitive.indices = self.indices(triangles)
            if material is not None:
                primitive.material = material
            primitives.append(primitive)
        self.gltf.meshes.append(g.Mesh(name=name, primitives=primitives))
        return len(self.gltf.meshes) - 1

    def node(self, name, mesh=None, translation=None, children=None):
        node = g.Node(name=name)
        if mesh is not None:
            node.mesh = mesh
        if translation is not None:
            node.translation = list(y_up(translation))
        if children:
            node.children = children
        self.gltf.nodes.append(node)
        return len(self.gltf.nodes) - 1

    def finish(self, roots):
        self.gltf.scenes.append(g.Scene(nodes=roots))
        self.gltf.scene = 0
        self.gltf.buffers.append(g.Buffer(byteLength=len(self.blob)))
        self.gltf.set_binary_blob(bytes(self.blob))
        return self.gltf


def strip(sections, inner, outer):
    """Points and triangles of the band between offsets inner < outer (m
    to the left of the line), one quad a section."""
    points = []
    for (x, y, z), (dx, dy) in sections:
        lx, ly = -dy, dx
        points.append((x + lx * inner, y + ly * inner, z))
        points.append((x + lx * outer, y + ly * outer, z))
    n = len(sections)
    triangles = []
    for i in range(n):
        a, b = 2 * i, 2 * ((i + 1) % n)
        # Counter-clockwise from above: inner edge forward, then outward.
        triangles.append((a, b, a + 1))
        triangles.append((a + 1, b, b + 1))
    return points, triangles


def stadium(w):
    sections = [centre(LENGTH * k / 200) for k in range(200)]
    tarmac = w.material("Tarmac", [0.2, 0.2, 0.22, 1.0])
    kerb = w.material("Kerb", [0.8, 0.1, 0.1, 1.0])
    grass = w.material("Grass.001", [0.2, 0.5, 0.15, 1.0])
    concrete = w.material("Concrete", [0.6, 0.6, 0.6, 1.0])
    road = w.mesh("road", [(*strip(sections, -RIGHT, LEFT), tarmac)])
    kerbs = w.mesh(
        "kerbs",
        [
            (*strip(sections, -RIGHT - KERB, -RIGHT), kerb),
            (*strip(sections, LEFT, LEFT + KERB), kerb),
        ],
    )
    # Grass beyond the right-hand kerb (the outside: the circuit runs
    # counter-clockwise); gravel inside.
    verge = w.mesh("verge", [(*strip(sections, -RIGHT - KERB - GRASS, -RIGHT - KERB), grass)])
    trap = w.mesh("gravel_trap", [(*strip(sections, LEFT + KERB, LEFT + KERB + GRASS), None)])
    box = [(x, y, z) for x in (-40, 40) for y in (-100, -90) for z in (0, 12)]
    faces = [(0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6), (0, 1, 5), (0, 5, 4),
             (2, 6, 7), (2, 7, 3), (0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5)]
    stand = w.mesh("grandstand", [(box, faces, concrete)])
    controls = [centre(LENGTH * k / 64)[0] for k in range(64)]
    line = w.mesh("centre_line", [(controls, None, None)], mode=g.LINE_LOOP)
    children = [
        w.node("road", road),
        w.node("kerbs", kerbs),
        w.node("verge", verge),
        w.node("gravel_trap", trap),
        w.node("grandstand", stand),
        w.node("centre_line", line),
        w.node("start", translation=centre(30.0)[0]),
        w.node("sector.1", translation=centre(LENGTH / 3)[0]),
        w.node("sector.2", translation=centre(2 * LENGTH / 3)[0]),
    ]
    root = w.node("circuit", translation=(100.0, 0.0, -50.0), children=children)
    return w.finish([root])


def grid(w, n):
    """A flat tarmac square of 2 * n * n triangles under the stadium's line."""
    side = 2 * (STRAIGHT + 2 * RADIUS)
    step = side / n
    points = [(-side / 2 + i * step, -side / 2 + j * step, 0.0) for j in range(n + 1) for i in range(n + 1)]
    triangles = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            triangles.append((a, a + 1, a + n + 2))
            triangles.append((a, a + n + 2, a + n + 1))
    tarmac = w.material("Tarmac", [0.2, 0.2, 0.22, 1.0])
    ground = w.mesh("apron", [(points, triangles, tarmac)])
    controls = [(x, y, 0.0) for (x, y, _) in (centre(LENGTH * k / 64)[0] for k in range(64))]
    line = w.mesh("centre_line", [(controls, None, None)], mode=g.LINE_LOOP)
    return w.finish([w.node("apron", ground), w.node("centre_line", line)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if "--grid" in sys.argv:
        n = int(sys.argv[sys.argv.index("--grid") + 1])
        grid(Writer(), n).save_binary(os.path.join(out, "grid.glb"))
        return
    stadium(Writer()).save_binary(os.path.join(out, "stadium.glb"))
    scene = stadium(Writer())
    with open(os.path.join(out, "stadium.bin"), "wb") as f:
        f.write(scene.binary_blob())
    scene.buffers[0].uri = "stadium.bin"
    scene.save_json(os.path.join(out, "stadium.gltf"))


if __name__ == "__main__":
    main()
