// The unsigned ID token the test library hands the SDK (`mockUserToken`), built the way
// @firebase/util's createMockUserToken builds it: header {"alg":"none","type":"JWT"}, an empty
// signature, and claims that start from the defaults below and are then overridden by the
// caller's options (authenticatedContext passes {...claims, sub: uid, user_id: uid}).

/** base64url without padding, as JWT segments are written. */
export function base64url(text) {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The payload createMockUserToken would sign (it does not sign) for `projectId`. */
export function mockTokenClaims(projectId, options) {
  if (options.uid) throw new Error('mockUserToken takes "sub", not "uid"');
  const issuedAt = options.iat || 0;
  const subject = options.sub || options.user_id;
  if (!subject) throw new Error("mockUserToken needs 'sub' or 'user_id'");
  return Object.assign({
    iss: `https://securetoken.google.com/${projectId}`,
    aud: projectId,
    iat: issuedAt,
    exp: issuedAt + 3600,
    auth_time: issuedAt,
    sub: subject,
    user_id: subject,
    firebase: { sign_in_provider: 'custom', identities: {} },
  }, options);
}

/** The token string: `owner` stays as it is (the emulators' administrator token). */
export function mockToken(projectId, options) {
  if (typeof options === 'string') return options;
  return [
    base64url(JSON.stringify({ alg: 'none', type: 'JWT' })),
    base64url(JSON.stringify(mockTokenClaims(projectId, options))),
    '',
  ].join('.');
}
