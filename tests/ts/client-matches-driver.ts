// The published declaration of the client (pkg-template/client.d.ts, written by hand) matches the class
// that ships (src/driver/task_client.js): the same public members, each assignable both ways, the same
// static methods and the same module exports. Checked by js.tsconfig.json with the driver's sources,
// so it needs no built package (tests/ts/tsconfig.json checks hosts against pkg/ instead).
import type * as shippedModule from "../../src/driver/task_client.js";
import type { ELEMENT, TaskClient as Shipped } from "../../src/driver/task_client.js";
import type * as declaredModule from "../../pkg-template/client.js";
import type { TaskClient as Declared } from "../../pkg-template/client.js";

/** Compiles only for `true`. */
type Expect<T extends true> = T;
/** True when `A` is assignable to `B`. */
type Fits<A, B> = [A] extends [B] ? true : false;
/** True when `A` and `B` are assignable to each other (for names: the same names). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The shipped class's public instance members, less the element's way in (not host API). */
type ShippedMembers = Omit<Shipped, typeof ELEMENT>;
/** The declared class's public instance members (its interface's typed listeners included). */
type DeclaredMembers = { [K in keyof Declared]: Declared[K] };

/** Static members, less the `prototype` every class has. */
type Statics<C> = Exclude<keyof C, "prototype">;

export type Checks = [
  // A member added, removed or renamed on one side only.
  Expect<Same<keyof ShippedMembers, keyof DeclaredMembers>>,
  // A member whose type changed on one side only.
  Expect<Fits<ShippedMembers, DeclaredMembers>>,
  Expect<Fits<DeclaredMembers, ShippedMembers>>,
  // `TaskClient.open` and any other static method.
  Expect<Same<Statics<typeof Shipped>, Statics<typeof Declared>>>,
  Expect<Same<Parameters<(typeof Shipped)["open"]>, Parameters<(typeof Declared)["open"]>>>,
  Expect<Fits<Awaited<ReturnType<(typeof Shipped)["open"]>>, Declared>>,
  // The module's values (`init`, `initSync`, `setFullDoor`, the protocol's names…), less `ELEMENT`.
  Expect<Same<Exclude<keyof typeof shippedModule, "ELEMENT">, keyof typeof declaredModule>>,
];
