//! Writing an output file so that a crash or a failure never leaves a
//! half-written file, and never replaces something that is not a regular
//! file.
//!
//! The bytes go to a new temporary file beside the target (created with
//! mode 0666 less the umask, or the replaced file's own permissions),
//! which is flushed to disk, renamed over the target, and then the
//! directory is flushed so the rename itself survives a crash. On any
//! failure the temporary file is removed. The target's directory must
//! exist: a typo in `-o` is an error, not a new directory.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Writes `bytes` to `path` atomically (see the module docs).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |out| Ok(out.write_all(bytes)?))
}

/// Streams what `write` produces to `path` atomically (see the module
/// docs), through a buffer, so an output of any size never sits in memory
/// whole; returns what `write` returned. A failing `write` leaves the
/// target as it was.
pub fn write_atomic_with<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T>,
) -> Result<T> {
    write_atomic_file(path, |file, temp_path| {
        let mut buffered = std::io::BufWriter::new(file);
        let result = write(&mut buffered)?;
        buffered
            .flush()
            .with_context(|| format!("cannot write {}", temp_path.display()))?;
        Ok(result)
    })
}

/// [`write_atomic_with`] for a writer that needs the file itself (to seek
/// in it): `write` gets the temporary file and its path, for messages.
pub fn write_atomic_file<T>(
    path: &Path,
    write: impl FnOnce(&mut File, &Path) -> Result<T>,
) -> Result<T> {
    let (dir, existing) = check_target(path)?;
    let mut temp = TempFile::create(dir, path)?;
    let result = write(&mut temp.file, &temp.path)?;
    temp.file
        .sync_all()
        .with_context(|| format!("cannot write {}", temp.path.display()))?;
    if let Some(meta) = existing {
        // Replacing a file keeps its permissions, as an editor does.
        fs::set_permissions(&temp.path, meta.permissions())
            .with_context(|| format!("cannot set the mode of {}", temp.path.display()))?;
    }
    fs::rename(&temp.path, path)
        .with_context(|| format!("cannot move the new file into {}", path.display()))?;
    temp.renamed = true;
    sync_dir(dir)?;
    Ok(result)
}

/// Checks that `path` can be written by [`write_atomic`] (its directory
/// exists; it is absent or a regular file), so a command can refuse a bad
/// `-o` before its work. Returns the directory and what is there now.
pub fn check_target(path: &Path) -> Result<(&Path, Option<fs::Metadata>)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "cannot write {}: the directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    let existing = match fs::symlink_metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot look at {}", path.display())),
    };
    if let Some(meta) = &existing {
        let what = if meta.file_type().is_symlink() {
            Some("a symbolic link")
        } else if meta.is_dir() {
            Some("a directory")
        } else if !meta.is_file() {
            Some("not a regular file (a device, pipe or socket)")
        } else {
            None
        };
        if let Some(what) = what {
            bail!("refusing to replace {}: it is {what}", path.display());
        }
    }
    Ok((dir, existing))
}

/// A temporary file that removes itself unless it was renamed.
struct TempFile {
    path: PathBuf,
    file: File,
    renamed: bool,
}

impl TempFile {
    /// A new file `.NAME.PID.N.tmp` in `dir`.
    fn create(dir: &Path, target: &Path) -> Result<TempFile> {
        let name = target
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        for n in 0..1000 {
            let path = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            let mut options = OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                // The kernel applies the umask to this mode.
                options.mode(0o666);
            }
            match options.open(&path) {
                Ok(file) => {
                    return Ok(TempFile {
                        path,
                        file,
                        renamed: false,
                    });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot create a temporary file in {}", dir.display())
                    });
                }
            }
        }
        bail!(
            "cannot find a free temporary file name in {}",
            dir.display()
        )
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Flushes a directory's entries, so a rename in it survives a crash.
fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot flush the directory {}", dir.display()))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
