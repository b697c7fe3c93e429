/** The time source for decisions (grant expiry, sessions, audit). One place, so tests can control it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
