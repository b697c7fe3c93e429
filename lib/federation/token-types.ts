/** The URIs of RFC 8693 §3 and §2.1 that the token exchange speaks. */
export const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
