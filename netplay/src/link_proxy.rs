//! The link emulator on real sockets: a TCP proxy on loopback that delays
//! each chunk of bytes by its direction's [`LinkModel`], in order, so a
//! WebSocket (a browser's or a bot's) meets latency, jitter and stalls
//! without knowing. Bounded: a direction holds at most its model's
//! `max_in_flight` chunks of at most 64 KiB; past that it stops reading,
//! and TCP pushes back on the sender.

use std::net::SocketAddr;
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::link::{Link, LinkModel};

/// Proxies every connection made to `listener` to `upstream`: client to
/// server through `up`, server to client through `down`. Runs until the
/// task is dropped.
pub async fn run_link_proxy(
    listener: TcpListener,
    upstream: SocketAddr,
    up: LinkModel,
    down: LinkModel,
) {
    let mut connection = 0_u64;
    loop {
        let Ok((client, _)) = listener.accept().await else {
            continue;
        };
        connection += 1;
        // Each connection gets its own delays, repeatable from the seed.
        let seed = |m: LinkModel, k: u64| LinkModel {
            seed: m.seed.wrapping_mul(1_000_003).wrapping_add(k),
            ..m
        };
        let (up, down) = (seed(up, 2 * connection), seed(down, 2 * connection + 1));
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(upstream).await else {
                return;
            };
            let (client_read, client_write) = client.into_split();
            let (server_read, server_write) = server.into_split();
            let start = Instant::now();
            tokio::join!(
                pump(client_read, server_write, up, start),
                pump(server_read, client_write, down, start),
            );
        });
    }
}

/// Moves bytes from `from` to `to` through one direction's link.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    model: LinkModel,
    start: Instant,
) {
    let mut link: Link<Vec<u8>> = Link::new(model);
    let mut buf = vec![0_u8; 64 * 1024];
    let mut open = true;
    let now_ms = || start.elapsed().as_secs_f64() * 1000.0;
    while open || link.in_flight() > 0 {
        let due = link.next_delivery_ms();
        let wait =
            due.map(|at| std::time::Duration::from_secs_f64(((at - now_ms()) / 1000.0).max(0.0)));
        let room = link.in_flight() < model.max_in_flight;
        tokio::select! {
            read = from.read(&mut buf), if open && room => match read {
                Ok(0) | Err(_) => open = false,
                Ok(n) => {
                    link.send(now_ms(), buf[..n].to_vec());
                }
            },
            () = tokio::time::sleep(wait.unwrap_or_default()), if wait.is_some() => {
                while let Some(chunk) = link.receive(now_ms()) {
                    if to.write_all(&chunk).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
    let _ = to.shutdown().await;
}
