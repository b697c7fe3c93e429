// vitest runs outside React's server environment, where the real `server-only`
// package throws on import; the modules under test are server modules anyway.
export {};
