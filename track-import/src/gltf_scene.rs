//! A glTF 2.0 scene (`.gltf` or `.glb`, from Blender or any tool that
//! writes the format) as a track: its meshes with a surface's name become
//! the drivable ground, every mesh is kept for drawing, and named nodes
//! give the centre line, the start line and the sectors (`scene_line.rs`).
//!
//! The rules, as `skidpad track import` documents them:
//! - **Axes.** glTF is y-up in metres; skidpad is z-up. A scene point
//!   `(x, y, z)` is skidpad's `(x, −z, y)`. Node transforms (matrix or
//!   translation, rotation, scale) apply down the hierarchy of the
//!   scene's default scene (else its first).
//! - **Surfaces.** A triangle primitive is ground when its material's name
//!   (or, without a material, its mesh's, then its node's) names a
//!   surface: lower-cased, a Blender-style `.001` suffix dropped, the
//!   whole name or else its first word (split at anything not a letter or
//!   digit) that is a surface of the default table (`dry_asphalt`,
//!   `wet_asphalt`, `gravel`, `grass`, `sand`, `snow`, `ice`, `kerb`) or
//!   an alias (`tarmac`, `asphalt`, `road` → dry asphalt; `curb` →
//!   kerb). Any other triangle primitive is only drawn. Ground triangles
//!   thinner than 1 mm² are dropped (counted in the report).
//! - **Limits.** Triangles are counted from the accessors before any is
//!   read, against [`GltfOptions::max_triangles`]; every accessor is
//!   checked against its view and buffer; a required extension is
//!   refused by name (none is supported: no Draco, no meshopt).

use std::collections::BTreeMap;
use std::path::PathBuf;

use glam::{DMat4, DVec3};
use gltf::mesh::Mode;
use skidpad_core::{MeshSource, SurfaceId, SurfaceTable, TrackDefinition};

use crate::ImportError;
use crate::gltf_data::Buffers;

/// Triangles a scene may hold unless the caller allows more.
pub const DEFAULT_MAX_TRIANGLES: usize = 4_000_000;
/// Largest scene file a tool reads, bytes: the default budget's triangles
/// with their positions and 32-bit indices take about 100 MB.
pub const MAX_SCENE_FILE_BYTES: usize = 256 << 20;
/// Deepest node hierarchy walked: deeper is taken for a cycle.
const MAX_DEPTH: usize = 64;
/// Most node visits (a node reachable from several parents is visited once
/// per path).
const MAX_NODE_VISITS: usize = 1 << 20;
/// Smallest ground triangle kept, m² (the ground's own limit).
const MIN_AREA: f64 = 1e-6;

/// What [`from_gltf`] cannot take from the scene, and its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfOptions {
    /// The track's name.
    pub name: String,
    /// Most triangles (ground and drawn) the scene may hold.
    pub max_triangles: usize,
    /// The folder a `.gltf`'s external buffer files are read from; without
    /// one, only a GLB's own chunk and `data:` URIs are read.
    pub base_dir: Option<PathBuf>,
    /// The start line, m along the centre line from its first point,
    /// instead of the scene's `start` node.
    pub start: Option<f64>,
    /// Sector boundaries, m from the start line, instead of the scene's
    /// `sector.N` nodes.
    pub sectors: Option<Vec<f64>>,
}

impl GltfOptions {
    /// A name, the default budget, no folder, everything else from the
    /// scene.
    #[must_use]
    pub fn named(name: &str) -> GltfOptions {
        GltfOptions {
            name: name.to_owned(),
            max_triangles: DEFAULT_MAX_TRIANGLES,
            base_dir: None,
            start: None,
            sectors: None,
        }
    }
}

/// A scene imported as a track.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneTrack {
    /// The track: the centre line, widths, start line and sectors.
    pub definition: TrackDefinition,
    /// The drivable ground, in the default surface table's ids: what a
    /// world is given (`GroundSource::Mesh`) and a replay carries.
    pub ground: MeshSource,
    /// Every triangle primitive as drawn, ground included.
    pub visuals: Vec<VisualMesh>,
    /// What the scene held.
    pub counts: SceneCounts,
}

/// One drawn primitive, in skidpad's axes.
#[derive(Clone, Debug, PartialEq)]
pub struct VisualMesh {
    /// The node's name (or `node N`).
    pub node: String,
    /// The material's name (empty without one).
    pub material: String,
    /// The material's base colour, linear RGBA.
    pub colour: [f32; 4],
    /// The surface it is ground of, if any.
    pub surface: Option<SurfaceId>,
    /// Vertex positions, m.
    pub positions: Vec<[f32; 3]>,
    /// Three vertex indices a triangle.
    pub indices: Vec<u32>,
}

/// What a scene held, for `skidpad track check`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SceneCounts {
    /// Nodes visited.
    pub nodes: usize,
    /// Triangle primitives drawn.
    pub visual_primitives: usize,
    /// Their triangles.
    pub visual_triangles: usize,
    /// Ground triangles by surface name.
    pub ground_triangles: BTreeMap<String, usize>,
    /// Ground triangles dropped as thinner than 1 mm².
    pub dropped_triangles: usize,
    /// Line or point primitives other than the centre line (not used).
    pub ignored_primitives: usize,
}

/// Whether a path names a glTF scene (`.glb` or `.gltf`).
#[must_use]
pub fn is_scene_path(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"))
}

/// Reads and imports a scene file as every tool does: refused past
/// [`MAX_SCENE_FILE_BYTES`] before it is read, its external buffers read
/// from its folder, the track named after the file unless `options` name
/// it (an empty name), `options`' budget and overrides kept.
///
/// # Errors
/// The file cannot be read or is too large, or [`from_gltf`] refuses it.
pub fn read_scene_file(
    path: &std::path::Path,
    options: &GltfOptions,
) -> Result<SceneTrack, ImportError> {
    let failed = |e: std::io::Error| ImportError::File(format!("cannot read it: {e}"));
    let size = std::fs::metadata(path).map_err(failed)?.len();
    if size > MAX_SCENE_FILE_BYTES as u64 {
        return Err(ImportError::File(format!(
            "it is {size} bytes; a glTF scene is at most {MAX_SCENE_FILE_BYTES}"
        )));
    }
    let bytes = std::fs::read(path).map_err(failed)?;
    let mut options = options.clone();
    if options.name.is_empty() {
        options.name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
    }
    options.base_dir = path.parent().map(std::path::Path::to_owned);
    from_gltf(&bytes, &options)
}

/// A node with a name the line reader looks for, where the walk met it.
pub(crate) struct NamedNode {
    pub name: String,
    pub world: DMat4,
    /// The line or point primitive's vertices, in skidpad's axes.
    pub points: Vec<DVec3>,
    pub extras: Option<String>,
}

/// Imports a glTF 2.0 scene (JSON or GLB bytes) as a track (see the
/// module docs for the rules).
///
/// # Errors
/// The bytes are not glTF, a buffer is missing or short, an accessor runs
/// past its data, a required extension is not supported, the scene holds
/// more triangles than the budget, or what it gives does not make a track;
/// each error names the element.
pub fn from_gltf(bytes: &[u8], options: &GltfOptions) -> Result<SceneTrack, ImportError> {
    let gltf = gltf::Gltf::from_slice(bytes).map_err(describe_gltf_error)?;
    let buffers = Buffers::read(&gltf, options.base_dir.as_deref())?;
    let scene = gltf
        .default_scene()
        .or_else(|| gltf.scenes().next())
        .ok_or_else(|| ImportError::File("the file has no scene".into()))?;
    let mut walk = Walk {
        buffers: &buffers,
        table: SurfaceTable::presets(),
        budget: options.max_triangles,
        triangles: 0,
        visits: 0,
        ground: MeshSource {
            vertices: Vec::new(),
            triangles: Vec::new(),
            surfaces: Some(Vec::new()),
        },
        visuals: Vec::new(),
        named: Vec::new(),
        counts: SceneCounts::default(),
    };
    for node in scene.nodes() {
        walk.node(&node, Y_UP_TO_Z_UP, 0)?;
    }
    if walk.ground.triangles.is_empty() {
        return Err(ImportError::File(
            "no mesh names a surface, so the scene has no ground (name a material `tarmac`, \
             `kerb`, `grass`, …)"
                .into(),
        ));
    }
    let definition = crate::scene_line::definition(&walk.named, &walk.ground, options)?;
    Ok(SceneTrack {
        definition,
        ground: walk.ground,
        visuals: walk.visuals,
        counts: walk.counts,
    })
}

/// glTF's y-up axes turned into skidpad's z-up: a quarter turn about x.
const Y_UP_TO_Z_UP: DMat4 = DMat4::from_cols_array(&[
    1.0, 0.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, -1.0, 0.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
]);

/// The walk down a scene's nodes, collecting as it goes.
struct Walk<'b, 'a> {
    buffers: &'b Buffers<'a>,
    table: SurfaceTable,
    budget: usize,
    triangles: usize,
    visits: usize,
    ground: MeshSource,
    visuals: Vec<VisualMesh>,
    named: Vec<NamedNode>,
    counts: SceneCounts,
}

impl Walk<'_, '_> {
    fn node(
        &mut self,
        node: &gltf::Node<'_>,
        parent: DMat4,
        depth: usize,
    ) -> Result<(), ImportError> {
        self.visits += 1;
        if depth > MAX_DEPTH || self.visits > MAX_NODE_VISITS {
            return Err(ImportError::File(format!(
                "nodes[{}]: the hierarchy nests deeper than {MAX_DEPTH} or visits more than \
                 {MAX_NODE_VISITS} nodes (a cycle?)",
                node.index()
            )));
        }
        self.counts.nodes += 1;
        let local = node.transform().matrix().map(|c| c.map(f64::from));
        let world = parent * DMat4::from_cols_array_2d(&local);
        let name = node
            .name()
            .map_or_else(|| format!("node {}", node.index()), str::to_owned);
        let mut points = Vec::new();
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                let at = format!("meshes[{}].primitives[{}]", mesh.index(), primitive.index());
                match primitive.mode() {
                    Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan => {
                        self.triangles_of(&primitive, &mesh, &name, world, &at)?;
                    }
                    _ if crate::scene_line::is_line_node(&name) => {
                        // Counted against the budget too: a line node
                        // reached by many paths is read once per path.
                        let count = primitive
                            .get(&gltf::Semantic::Positions)
                            .map_or(0, |p| p.count());
                        self.spend(count, &at)?;
                        points.extend(self.positions(&primitive, world, &at)?);
                    }
                    _ => self.counts.ignored_primitives += 1,
                }
            }
        }
        if crate::scene_line::is_line_node(&name) {
            self.named.push(NamedNode {
                name: name.clone(),
                world,
                points,
                extras: node.extras().as_ref().map(|raw| raw.get().to_owned()),
            });
        }
        for child in node.children() {
            self.node(&child, world, depth + 1)?;
        }
        Ok(())
    }

    /// Counts `count` elements (triangles, or a line's points) against the
    /// budget before they are read.
    fn spend(&mut self, count: usize, at: &str) -> Result<(), ImportError> {
        self.triangles = self.triangles.saturating_add(count);
        if self.triangles > self.budget {
            return Err(ImportError::File(format!(
                "{at} takes the scene past its budget of {} triangles",
                self.budget
            )));
        }
        Ok(())
    }

    /// A primitive's positions in skidpad's axes.
    fn positions(
        &self,
        primitive: &gltf::Primitive<'_>,
        world: DMat4,
        at: &str,
    ) -> Result<Vec<DVec3>, ImportError> {
        let accessor = primitive
            .get(&gltf::Semantic::Positions)
            .ok_or_else(|| ImportError::File(format!("{at} has no POSITION")))?;
        let at = format!("{at}: POSITION (accessors[{}])", accessor.index());
        Ok(self
            .buffers
            .floats::<3>(&accessor, &at)?
            .into_iter()
            .map(|p| world.transform_point3(DVec3::from_array(p)))
            .collect())
    }

    /// A triangle primitive: counted against the budget, drawn, and added
    /// to the ground when its name names a surface.
    fn triangles_of(
        &mut self,
        primitive: &gltf::Primitive<'_>,
        mesh: &gltf::Mesh<'_>,
        node: &str,
        world: DMat4,
        at: &str,
    ) -> Result<(), ImportError> {
        let corners = match primitive.indices() {
            Some(indices) => indices.count(),
            None => primitive
                .get(&gltf::Semantic::Positions)
                .map_or(0, |p| p.count()),
        };
        let count = match primitive.mode() {
            Mode::Triangles => corners / 3,
            _ => corners.saturating_sub(2),
        };
        self.spend(count, at)?;
        let positions = self.positions(primitive, world, at)?;
        let corners: Vec<u32> = match primitive.indices() {
            Some(accessor) => {
                let at = format!("{at}: indices (accessors[{}])", accessor.index());
                let indices = self.buffers.indices(&accessor, &at)?;
                if let Some(bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
                    return Err(ImportError::File(format!(
                        "{at}: index {bad} is past the {} positions",
                        positions.len()
                    )));
                }
                indices
            }
            None => (0..positions.len() as u32).collect(),
        };
        let mirrored = world.determinant() < 0.0;
        let triangles = triangle_list(primitive.mode(), &corners, mirrored);
        let material = primitive.material();
        let material_name = material.name().unwrap_or_default().to_owned();
        let surface = surface_named(&self.table, &material_name)
            .or_else(|| mesh.name().and_then(|n| surface_named(&self.table, n)))
            .or_else(|| surface_named(&self.table, node));
        if let Some(surface) = surface {
            self.add_ground(&positions, &triangles, surface);
        }
        self.counts.visual_primitives += 1;
        self.counts.visual_triangles += triangles.len();
        self.visuals.push(VisualMesh {
            node: node.to_owned(),
            material: material_name,
            colour: material.pbr_metallic_roughness().base_color_factor(),
            surface,
            positions: positions.iter().map(|p| p.as_vec3().to_array()).collect(),
            indices: triangles.into_iter().flatten().collect(),
        });
        Ok(())
    }

    fn add_ground(&mut self, positions: &[DVec3], triangles: &[[u32; 3]], surface: SurfaceId) {
        let base = self.ground.vertices.len() as u32;
        self.ground.vertices.extend_from_slice(positions);
        let name = self
            .table
            .get(surface)
            .map_or_else(|_| String::new(), |s| s.name.clone());
        let surfaces = self.ground.surfaces.get_or_insert_with(Vec::new);
        for t in triangles {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            if (b - a).cross(c - a).length() / 2.0 < MIN_AREA {
                self.counts.dropped_triangles += 1;
                continue;
            }
            self.ground.triangles.push(t.map(|i| base + i));
            surfaces.push(surface);
            *self
                .counts
                .ground_triangles
                .entry(name.clone())
                .or_default() += 1;
        }
    }
}

/// A triangle list from a primitive's corners, wound counter-clockwise
/// seen from its front (reversed when the node's transform mirrors).
fn triangle_list(mode: Mode, corners: &[u32], mirrored: bool) -> Vec<[u32; 3]> {
    let mut triangles: Vec<[u32; 3]> = match mode {
        Mode::TriangleStrip => (0..corners.len().saturating_sub(2))
            .map(|k| {
                let (a, b, c) = (corners[k], corners[k + 1], corners[k + 2]);
                if k % 2 == 0 { [a, b, c] } else { [b, a, c] }
            })
            .collect(),
        Mode::TriangleFan => (1..corners.len().saturating_sub(1))
            .map(|k| [corners[0], corners[k], corners[k + 1]])
            .collect(),
        _ => corners
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect(),
    };
    if mirrored {
        for t in &mut triangles {
            t.swap(1, 2);
        }
    }
    triangles
}

/// Other names for the default table's surfaces that scenes use.
const ALIASES: &[(&str, SurfaceId)] = &[
    ("tarmac", SurfaceId::DRY_ASPHALT),
    ("asphalt", SurfaceId::DRY_ASPHALT),
    ("road", SurfaceId::DRY_ASPHALT),
    ("curb", SurfaceId::KERB),
];

/// The surface a material, mesh or node name names (module docs).
#[must_use]
pub fn surface_named(table: &SurfaceTable, name: &str) -> Option<SurfaceId> {
    let lower = name.to_lowercase();
    let trimmed = match lower.rsplit_once('.') {
        Some((stem, suffix))
            if !suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) =>
        {
            stem
        }
        _ => lower.as_str(),
    };
    if let Some(id) = table.id_of(trimmed) {
        return Some(id);
    }
    trimmed
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .find_map(|word| {
            table.id_of(word).or_else(|| {
                ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == word)
                    .map(|&(_, id)| id)
            })
        })
}

/// The gltf crate's error, with the JSON path of each invalid element (a
/// required extension's path names it: `extensionsRequired[0] =
/// "KHR_draco_mesh_compression": Unsupported extension`).
fn describe_gltf_error(error: gltf::Error) -> ImportError {
    match error {
        gltf::Error::Validation(problems) => {
            let listed: Vec<String> = problems
                .iter()
                .take(8)
                .map(|(path, why)| format!("{path}: {why}"))
                .collect();
            ImportError::File(format!("not a valid glTF 2.0 file: {}", listed.join("; ")))
        }
        other => ImportError::File(format!("not a glTF 2.0 file: {other}")),
    }
}
