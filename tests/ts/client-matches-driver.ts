// The published declaration of the client (pkg-template/client.d.ts, written by hand) matches the class
// that ships (js/driver/task_client.js): the same public members, each assignable both ways, the same
// static methods and the same module exports. A member added, removed or renamed on one side only, or
// whose type changed on one side only, fails the type check with an error that names it. Checked by
// js.tsconfig.json with the driver's sources, so it needs no built package (tests/ts/tsconfig.json
// checks hosts against pkg/ instead).
import type * as shippedModule from "../../js/driver/task_client.js";
import type { ELEMENT, TaskClient as Shipped } from "../../js/driver/task_client.js";
import type * as declaredModule from "../../pkg-template/client.js";
import type { TaskClient as Declared } from "../../pkg-template/client.js";

/** The shipped class's public instance members, less the element's way in (not host API). */
type ShippedMembers = Omit<Shipped, typeof ELEMENT>;
/** The declared class's public instance members (its interface's typed listeners included). */
type DeclaredMembers = { [K in keyof Declared]: Declared[K] };
/** Static members, less the `prototype` every class has. */
type Statics<C> = Exclude<keyof C, "prototype">;
/** An object that must have every key of `K`: `{}` fits only when `K` is empty. */
type NoneOf<K extends PropertyKey> = Record<K, never>;

// Members on one side only.
export const membersMissingFromClientDts: NoneOf<Exclude<keyof ShippedMembers, keyof DeclaredMembers>> = {};
export const membersMissingFromTaskClient: NoneOf<Exclude<keyof DeclaredMembers, keyof ShippedMembers>> = {};

// Members whose types differ.
declare const shipped: ShippedMembers;
declare const declared: DeclaredMembers;
export const shippedAsDeclared: DeclaredMembers = shipped;
export const declaredAsShipped: ShippedMembers = declared;

// Static methods (`TaskClient.open`).
export const staticsMissingFromClientDts: NoneOf<Exclude<Statics<typeof Shipped>, Statics<typeof Declared>>> = {};
export const staticsMissingFromTaskClient: NoneOf<Exclude<Statics<typeof Declared>, Statics<typeof Shipped>>> = {};
declare const shippedOpen: (typeof Shipped)["open"];
export const openAsDeclared: (typeof Declared)["open"] = shippedOpen;

// The module's values (`init`, `initSync`, `setFullDoor`, the protocol's names…), less element.js's
// way in (`ELEMENT`, `setDoor` and the model's functions), which is not host API.
type ShippedExports = Exclude<
  keyof typeof shippedModule,
  "ELEMENT" | "setDoor" | "elementAnswer" | "elementElapsed" | "elementWords"
>;
type DeclaredExports = keyof typeof declaredModule;
export const exportsMissingFromClientDts: NoneOf<Exclude<ShippedExports, DeclaredExports>> = {};
export const exportsMissingFromTaskClientJs: NoneOf<Exclude<DeclaredExports, ShippedExports>> = {};
