//! Shared by the tests that run the service binary: starting it on a free
//! loopback port, and reading its JSON and pieces over HTTP.

#![allow(dead_code)] // Each test binary uses a different part of this file.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The service, killed if a test fails before it stops it.
pub struct Service {
    pub child: Child,
    pub base: String,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `host:port` in the service's first line
/// (`spectate at http://HOST:PORT/races/…`).
pub fn address_of(line: &str) -> String {
    line.split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned()
}

/// Starts the binary on `127.0.0.1:0` with `args` and reads the address it
/// listens on.
pub fn start<S: AsRef<OsStr>>(args: &[S]) -> Service {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad-spectator"))
        .args(["--listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    Service {
        child,
        base: format!("http://{}", address_of(&line)),
    }
}

pub async fn json(url: &str) -> serde_json::Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

pub async fn bytes(url: &str) -> Vec<u8> {
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), 200, "{url}");
    response.bytes().await.unwrap().to_vec()
}
