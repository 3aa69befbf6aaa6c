//! A throwaway PostgreSQL server for the leaderboard's tests: Debian's
//! `postgresql` binaries, a fresh cluster in a temporary directory, trust
//! authentication, listening on 127.0.0.1 only, on a free port, stopped
//! and deleted when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable the leaderboard's tests read the server from.
pub const URL_VAR: &str = "SKIDPAD_TEST_POSTGRES_URL";
/// Set with it: the tests fail, rather than skip, without a server.
pub const REQUIRE_VAR: &str = "SKIDPAD_REQUIRE_POSTGRES";
/// A shell command that restarts the server (its fault test restarts it
/// under load).
pub const RESTART_VAR: &str = "SKIDPAD_TEST_POSTGRES_RESTART";

/// The newest installed server's `bin` directory
/// (`/usr/lib/postgresql/VERSION/bin`, as Debian lays it out).
pub fn server_bin_dir() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// A running server.
pub struct TestPostgres {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    /// PostgreSQL refuses to run as root: as root, it runs as the
    /// `postgres` user the Debian package creates.
    run_as: Option<&'static str>,
}

impl TestPostgres {
    /// Creates a cluster and starts it.
    pub fn start() -> Result<TestPostgres, String> {
        let bin =
            server_bin_dir().ok_or("PostgreSQL is not installed (apt-get install postgresql)")?;
        let root = Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false);
        let data = std::env::temp_dir().join(format!("skidpad-postgres-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).map_err(|e| format!("{}: {e}", data.display()))?;
        let run_as = root.then_some("postgres");
        if let Some(user) = run_as {
            let status = Command::new("chown")
                .args([&format!("{user}:"), &data.display().to_string()])
                .status()
                .map_err(|e| format!("chown: {e}"))?;
            if !status.success() {
                return Err(format!("chown {user}: {} failed", data.display()));
            }
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let server = TestPostgres {
            bin,
            data,
            port,
            run_as,
        };
        let data = server.data.display().to_string();
        server.pg(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        // Sockets in the data directory, TCP on loopback only; durability
        // is not what these tests measure.
        let options = format!(
            "-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200"
        );
        let log = server.data.join("server.log").display().to_string();
        server.pg(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-w", "-o", &options, "start"],
        )?;
        println!(
            "==> PostgreSQL ({}) on 127.0.0.1:{port}",
            server.bin.display()
        );
        Ok(server)
    }

    /// The connection URL.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// A shell command restarting the server with its options (`pg_ctl
    /// restart` reuses the command line it was started with).
    pub fn restart_command(&self) -> String {
        let pg_ctl = self.bin.join("pg_ctl").display().to_string();
        let prefix = self
            .run_as
            .map(|user| format!("runuser -u {user} -- "))
            .unwrap_or_default();
        format!(
            "{prefix}{pg_ctl} -D {} -m fast -w restart -l {}",
            self.data.display(),
            self.data.join("server.log").display()
        )
    }

    /// Sets the tests' variables on `command`.
    pub fn export(&self, command: &mut Command) {
        command
            .env(URL_VAR, self.url())
            .env(REQUIRE_VAR, "1")
            .env(RESTART_VAR, self.restart_command());
    }

    fn pg(&self, tool: &str, args: &[&str]) -> Result<(), String> {
        let program = self.bin.join(tool);
        let mut cmd = match self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        cmd.args(args).current_dir(Path::new("/"));
        let out = cmd.output().map_err(|e| format!("{tool}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{tool} failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let data = self.data.display().to_string();
        let _ = self.pg("pg_ctl", &["-D", &data, "-m", "fast", "-w", "stop"]);
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// `cargo xtask with-postgres COMMAND…`: runs COMMAND with a throwaway
/// server's URL in [`URL_VAR`] (e.g. `cargo xtask with-postgres cargo test
/// -p skidpad-leaderboard`), then stops the server.
pub fn run_with_server(command: &[String]) -> Result<(), String> {
    let (program, args) = command
        .split_first()
        .ok_or("usage: cargo xtask with-postgres COMMAND [ARGS…]")?;
    let server = TestPostgres::start()?;
    let mut command = Command::new(program);
    command.args(args);
    server.export(&mut command);
    let status = command.status().map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{program} exited with {status}"))
    }
}
