//! The service binary stops on SIGTERM while spectators follow a live
//! tail: the tails end (a spectator resumes elsewhere with Last-Event-ID)
//! instead of holding the graceful shutdown open for ever.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn sigterm_ends_live_tails_and_the_process() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skidpad-spectator"))
        .args(["--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    // Kept open to the end: the service prints to it.
    let mut output = BufReader::new(child.stdout.take().unwrap());
    output.read_line(&mut line).unwrap();
    let address = common::address_of(&line);
    let mut spectator = TcpStream::connect(&address).unwrap();
    spectator
        .write_all(b"GET /races/demo/live HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    spectator
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = [0u8; 64];
    let n = spectator.read(&mut head).unwrap();
    assert!(
        head[..n].starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head[..n])
    );

    let stopped = Instant::now();
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if stopped.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("still running 10 s after SIGTERM with a spectator attached");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    // The spectator's stream was ended, not cut by a crash: it reads to
    // its end.
    let mut rest = Vec::new();
    let _ = spectator.read_to_end(&mut rest);
    println!("stopped in {:?}", stopped.elapsed());
    drop(output);
}
