// A player's token for a leaderboard: the leaderboard ranks a run under
// the player whose token submitted it, so the play page signs the name up
// once (POST /players) and keeps the token in this browser, per
// leaderboard and name.

const key = (base, player) => `skidpad.token.${base || location.origin}.${player}`;

/** The stored token of `player` on the leaderboard at `base`, signing the
 * name up if this browser holds none. Throws with the server's reason
 * when the name is taken or sign-up is closed. */
export async function playerToken(base, player) {
  const stored = localStorage.getItem(key(base, player));
  if (stored) return stored;
  const response = await fetch(`${base}/players`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: player }),
  });
  const body = await response.json().catch(() => ({}));
  if (response.status === 409) {
    throw new Error(`the name "${player}" belongs to another player on this leaderboard: choose another`);
  }
  if (!response.ok) throw new Error(`cannot sign up as "${player}": ${body.error ?? response.status}`);
  localStorage.setItem(key(base, player), body.token);
  return body.token;
}

/** Forgets a token the leaderboard no longer accepts (revoked), so the
 * next submission signs up again or says why it cannot. */
export function forgetToken(base, player) {
  localStorage.removeItem(key(base, player));
}
