//! One player's WebSocket: the sign-in, then inputs in and frames out,
//! pings every `ping_every` with a smoothed round-trip time, and the kicks
//! (seed 001: 4003 past the latency limit, 4004 after missed pings; and
//! 4005 for a message that breaks the protocol, 4006 for a flood).

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::json;
use tokio::sync::{mpsc, oneshot};

use crate::messages::{Channel, Command, InputMessage};
use crate::payloads::{AuthAnswer, AuthForm, json_message, message, tech_codes};
use crate::race_schema::RemovalReason;
use crate::service::race_loop::{JoinRefusal, Member, Outbound, RaceCommand};
use crate::service::{ServiceOptions, Shared};

/// Weight of a new round-trip time in the smoothed latency.
const LATENCY_WEIGHT: f64 = 0.2;

type Sink = futures_util::stream::SplitSink<WebSocket, Message>;
type Stream = futures_util::stream::SplitStream<WebSocket>;

/// Sends a tech inform with `code` and closes the socket with it.
async fn kick(sink: &mut Sink, code: u16, reason: &str) {
    tracing::info!(code, reason, "closing a connection");
    let _ = sink
        .send(Message::Binary(
            json_message(Channel::TechInform, &json!([code, reason])).into(),
        ))
        .await;
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code,
            reason: reason.chars().take(100).collect::<String>().into(),
        })))
        .await;
}

/// How long a kicked client has to answer the close frame.
const CLOSE_REPLY_WAIT: Duration = Duration::from_secs(1);

/// The close handshake's second half, after a kick: reads (and drops) what
/// the client still sends until its close frame, the end of the stream or
/// [`CLOSE_REPLY_WAIT`]. Dropping the socket while the client's inputs
/// are still unread makes the kernel reset the connection, and a reset can
/// reach the client before the close frame it should read: a client under
/// load saw "connection reset" instead of the kick's code.
async fn await_close_reply(stream: &mut Stream) {
    let _ = tokio::time::timeout(CLOSE_REPLY_WAIT, async {
        while let Some(Ok(message)) = stream.next().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// Serves one connection to its end.
pub(crate) async fn serve(socket: WebSocket, shared: Arc<Shared>) {
    let (mut sink, mut stream) = socket.split();
    let hello = [
        shared.config_message.clone(),
        json_message(
            Channel::Auth,
            &AuthForm {
                params: vec!["token".into(), "name".into()],
            },
        ),
    ];
    for m in hello {
        if sink.send(Message::Binary(m.into())).await.is_err() {
            return;
        }
    }
    let limit = shared.options.max_message_bytes;
    let answer = match tokio::time::timeout(shared.options.auth_timeout, stream.next()).await {
        Ok(incoming) => sign_in_answer(incoming, limit),
        Err(_) => Err(format!(
            "no sign-in answer within {} s",
            shared.options.auth_timeout.as_secs_f64()
        )),
    };
    let answer = match answer {
        Ok(answer) => answer,
        Err(reason) => {
            // The sign-in's result, as FORMAT.md promises, then the kick.
            let result = json_message(Channel::AuthResult, &json!({ "error": reason }));
            let _ = sink.send(Message::Binary(result.into())).await;
            kick(&mut sink, tech_codes::AUTH_FAILED, &reason).await;
            await_close_reply(&mut stream).await;
            return;
        }
    };
    let (reply, joined) = oneshot::channel();
    let join = RaceCommand::Join {
        token: answer.token,
        name: answer.name,
        predict_all: answer.predict == crate::payloads::Prediction::All,
        reply,
    };
    if shared.commands.send(join).await.is_err() {
        return;
    }
    let joined = match joined.await {
        Ok(Ok(joined)) => joined,
        Ok(Err(refusal)) => {
            let (code, reason) = match refusal {
                JoinRefusal::Full => (tech_codes::SERVER_FULL, "every seat is taken".to_owned()),
                JoinRefusal::Denied(reason) => (tech_codes::AUTH_FAILED, reason),
            };
            let answer = json_message(Channel::AuthResult, &json!({ "error": reason }));
            let _ = sink.send(Message::Binary(answer.into())).await;
            kick(&mut sink, code, &reason).await;
            await_close_reply(&mut stream).await;
            return;
        }
        Err(_) => return,
    };
    let who = joined.who;
    for m in [
        json_message(Channel::AuthResult, &serde_json::Value::Null),
        json_message(Channel::Map, &joined.map),
    ] {
        if sink.send(Message::Binary(m.into())).await.is_err() {
            leave(&shared, who, Ending::Dropped).await;
            return;
        }
    }
    let ending = play(&shared, who, joined.outbound, &mut sink, &mut stream).await;
    leave(&shared, who, ending).await;
    if matches!(ending, Ending::Kicked) {
        await_close_reply(&mut stream).await;
    }
}

/// The client's first message as a sign-in answer, or why it is not one.
fn sign_in_answer(
    incoming: Option<Result<Message, axum::Error>>,
    limit: usize,
) -> Result<AuthAnswer, String> {
    match incoming {
        Some(Ok(Message::Binary(bytes))) if bytes.len() > limit => {
            Err(oversized(bytes.len(), limit))
        }
        Some(Ok(Message::Binary(bytes))) => match bytes.split_first() {
            Some((&channel, payload)) if channel == Channel::Auth as u8 => {
                serde_json::from_slice::<AuthAnswer>(payload)
                    .map_err(|e| format!("the sign-in answer is not {{token, name}} JSON: {e}"))
            }
            Some((&channel, _)) => Err(format!(
                "the first message must be the sign-in answer on channel {} (auth), not channel {channel}",
                Channel::Auth as u8
            )),
            None => Err("the sign-in answer is empty".into()),
        },
        Some(Ok(_)) => Err("the sign-in answer must be a binary message".into()),
        Some(Err(e)) => Err(format!("the sign-in answer could not be read: {e}")),
        None => Err("the connection closed before signing in".into()),
    }
}

/// Why a message over the size limit is refused.
fn oversized(bytes: usize, limit: usize) -> String {
    format!("a message of {bytes} bytes, over the {limit}-byte limit")
}

async fn leave(shared: &Shared, who: Member, ending: Ending) {
    let _ = shared
        .commands
        .send(RaceCommand::Leave { who, ending })
        .await;
}

/// Longest chat line, characters.
const MAX_CHAT_CHARS: usize = 200;
/// A connection's allowance of chat lines: one a second, no burst.
fn chat_allowance() -> DefaultDirectRateLimiter {
    RateLimiter::direct(Quota::per_second(NonZeroU32::MIN))
}

/// A connection's allowance of commands
/// ([`ServiceOptions::command_burst`], [`ServiceOptions::commands_per_second`]).
fn command_allowance(options: &ServiceOptions) -> DefaultDirectRateLimiter {
    RateLimiter::direct(
        Quota::per_second(options.commands_per_second).allow_burst(options.command_burst),
    )
}

/// A connection's timing: pings sent and not yet answered (oldest first),
/// the smoothed round trip, the allowances of chat lines and commands
/// (what a client sends past them is dropped, not a violation: it has no
/// answer to miss, and costs the race loop nothing).
struct Pings {
    next_id: u32,
    waiting: Vec<(u32, Instant)>,
    smoothed_ms: Option<f64>,
    chat: DefaultDirectRateLimiter,
    commands: DefaultDirectRateLimiter,
}

/// Why a signed-in connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The client closed it (a close frame): the player left.
    Closed,
    /// The link broke without a close (a dropped network, a killed
    /// client): the seat waits for the player (`RaceServer::drop_link`).
    Dropped,
    /// The server kicked the client.
    Kicked,
    /// The race retired the seat.
    Retired,
}

impl Ending {
    /// The reason the frames' removed block gives, if the car goes.
    pub(crate) fn reason(self) -> RemovalReason {
        match self {
            Ending::Closed | Ending::Dropped => RemovalReason::Left,
            Ending::Kicked => RemovalReason::Kicked,
            Ending::Retired => RemovalReason::Retired,
        }
    }
}

/// The signed-in part of a connection; returns why it ended.
async fn play(
    shared: &Shared,
    who: Member,
    mut outbound: mpsc::Receiver<Outbound>,
    sink: &mut Sink,
    stream: &mut Stream,
) -> Ending {
    let options = &shared.options;
    let mut ping = tokio::time::interval(options.ping_every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pings = Pings {
        next_id: 1,
        waiting: Vec::new(),
        smoothed_ms: None,
        chat: chat_allowance(),
        commands: command_allowance(options),
    };
    let mut refused = 0_u32;
    loop {
        tokio::select! {
            incoming = stream.next() => {
                let bytes = match incoming {
                    Some(Ok(Message::Binary(bytes))) if bytes.len() > options.max_message_bytes => {
                        kick(sink, tech_codes::PROTOCOL, &oversized(bytes.len(), options.max_message_bytes)).await;
                        return Ending::Kicked;
                    }
                    Some(Ok(Message::Binary(bytes))) => bytes,
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Text(_))) => {
                        kick(sink, tech_codes::PROTOCOL, "messages are binary: a channel byte, then the payload").await;
                        return Ending::Kicked;
                    }
                    Some(Ok(Message::Close(_))) => return Ending::Closed,
                    // The link broke (or a message past even the
                    // transport's bound, 64 times the limit, broke it).
                    Some(Err(_)) | None => return Ending::Dropped,
                };
                match take_message(shared, who, &bytes, &mut pings).await {
                    Ok(()) => {}
                    Err(why) => {
                        kick(sink, tech_codes::PROTOCOL, &why).await;
                        return Ending::Kicked;
                    }
                }
                if pings.smoothed_ms.is_some_and(|ms| ms > options.max_latency_ms) {
                    kick(sink, tech_codes::LATENCY, "latency above the limit").await;
                    return Ending::Kicked;
                }
            }
            out = outbound.recv() => {
                match out {
                    Some(Outbound::Message(m)) => {
                        if sink.send(Message::Binary(m.into())).await.is_err() {
                            return Ending::Dropped;
                        }
                    }
                    Some(Outbound::Refused(why)) => {
                        refused += 1;
                        if refused > options.max_refused_inputs {
                            kick(sink, tech_codes::FLOOD, &format!("too many refused inputs; the last: {why}")).await;
                            return Ending::Kicked;
                        }
                    }
                    None => return Ending::Retired,
                }
            }
            _ = ping.tick() => {
                if pings.waiting.len() >= options.max_missed_pings as usize {
                    kick(sink, tech_codes::MISSED_PINGS, "pings went unanswered").await;
                    return Ending::Kicked;
                }
                let id = pings.next_id;
                pings.next_id = pings.next_id.wrapping_add(1);
                pings.waiting.push((id, Instant::now()));
                if sink.send(Message::Binary(message(Channel::Ping, &id.to_be_bytes()).into())).await.is_err() {
                    return Ending::Dropped;
                }
            }
        }
    }
}

/// Acts on one message from a player or a spectator; an error is a
/// protocol violation, named for the kick.
async fn take_message(
    shared: &Shared,
    who: Member,
    bytes: &[u8],
    pings: &mut Pings,
) -> Result<(), String> {
    let (&channel, payload) = bytes.split_first().ok_or("an empty message")?;
    match Channel::from_byte(channel) {
        Some(Channel::Input) => {
            let Member::Seat(seat) = who else {
                return Err("a spectator sends no inputs".into());
            };
            let message = InputMessage::decode(payload).map_err(|e| e.to_string())?;
            let _ = shared
                .commands
                .send(RaceCommand::Input { seat, message })
                .await;
        }
        Some(Channel::Pong) => {
            let id = u32::from_be_bytes(payload.try_into().map_err(|_| "a pong is a u32 ping id")?);
            let at = pings
                .waiting
                .iter()
                .position(|(p, _)| *p == id)
                .ok_or("a pong for no ping")?;
            let sent = pings.waiting[at].1;
            // Older pings than the one answered are lost, not late.
            pings.waiting.drain(..=at);
            let rtt = sent.elapsed().as_secs_f64() * 1000.0;
            let smoothed = pings
                .smoothed_ms
                .map_or(rtt, |s| s + LATENCY_WEIGHT * (rtt - s));
            pings.smoothed_ms = Some(smoothed);
            if let Member::Seat(seat) = who {
                let _ = shared
                    .commands
                    .send(RaceCommand::Latency { seat, ms: smoothed })
                    .await;
            }
        }
        Some(Channel::ChatSend) => {
            let text = std::str::from_utf8(payload).map_err(|_| "a chat line is UTF-8")?;
            let chars = text.chars().count();
            if chars == 0 || chars > MAX_CHAT_CHARS || text.chars().any(char::is_control) {
                return Err(format!(
                    "a chat line is 1 to {MAX_CHAT_CHARS} printable characters"
                ));
            }
            if pings.chat.check().is_ok() {
                let _ = shared
                    .commands
                    .send(RaceCommand::Chat {
                        who,
                        text: text.to_owned(),
                    })
                    .await;
            }
        }
        Some(Channel::Shot) => {
            // Seed 001's key commands: a spectator's switch the player it
            // follows, a player's `reset` puts its car back on the track.
            // A malformed one is a violation; one past the allowance is
            // dropped.
            let text = std::str::from_utf8(payload).map_err(|_| "a command is UTF-8")?;
            let command = Command::parse(text).map_err(|e| e.to_string())?;
            if pings.commands.check().is_ok() {
                let _ = shared
                    .commands
                    .send(RaceCommand::Command { who, command })
                    .await;
            }
        }
        _ => return Err(format!("channel {channel} is not one a player sends")),
    }
    Ok(())
}

/// How long a connection may take to answer the sign-in form.
pub(crate) const DEFAULT_AUTH_TIMEOUT: Duration = Duration::from_secs(10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_may_send_a_burst_of_commands_and_no_more_at_once() {
        for burst in [10, 3] {
            let options = ServiceOptions {
                command_burst: NonZeroU32::new(burst).unwrap(),
                ..ServiceOptions::default()
            };
            let allowance = command_allowance(&options);
            let passed = (0..100).filter(|_| allowance.check().is_ok()).count();
            // The 100 checks take far less than the 50 ms one command
            // takes to come back.
            assert_eq!(passed, burst as usize);
        }
    }

    #[test]
    fn a_connection_may_send_one_chat_line_at_once() {
        let allowance = chat_allowance();
        assert_eq!((0..10).filter(|_| allowance.check().is_ok()).count(), 1);
    }
}
