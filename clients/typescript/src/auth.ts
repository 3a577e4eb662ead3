// Sessions: sign-up (with the PIN the server mails) and login; both leave the client carrying
// the session.
import { ok, type RequestBody, type Trellis } from "./client.js";

/** The details a sign-up starts with: `{email, handle, fullName, displayName}`. */
export type SignUpDetails = RequestBody<"/v0/auth/sign-up/start", "post">;

/**
 * Signs a new user up: starts the sign-up, asks `getPin` for the PIN the server mailed, verifies it
 * and sets the password. The client carries the new session from then on; its answer is returned.
 */
export async function signUp(
  trellis: Trellis,
  details: SignUpDetails,
  password: string,
  getPin: (email: string) => string | Promise<string>,
) {
  const { signupToken } = await ok(trellis.api.POST("/v0/auth/sign-up/start", { body: details }));
  const pin = await getPin(details.email);
  await ok(trellis.api.POST("/v0/auth/sign-up/verify-pin", { body: { signupToken, pin } }));
  const session = await ok(trellis.api.POST("/v0/auth/sign-up/complete", { body: { signupToken, password } }));
  trellis.token = session.sessionToken;
  return session;
}

/** Logs in with the handle or the e-mail; the client carries the session from then on. */
export async function login(trellis: Trellis, login: string, password: string) {
  const session = await ok(trellis.api.POST("/v0/auth/login", { body: { login, password } }));
  trellis.token = session.sessionToken;
  return session;
}
