export * from "./identity";
export * from "./tenancy";
export * from "./audit";
export * from "./settings";
export * from "./cluster";
export * from "./quota";
export * from "./metering";
export * from "./jobs";
