// A store the host application hands in (`options.store` an object), the JS half of
// src/store/js_host.rs: the method calls, their values and their failures. Failures are thrown as
// idb.js throws them, `{ kind, message }` (`kind` "quota" or "failed"), and Rust makes them
// StoreErrors the same way.

const METHODS = "get, put, delete, list";

/**
 * The host's object with its four methods looked up once (and `compareAndPut` if it has one), each
 * called with the object as `this`, so class instances work as well as object literals.
 */
export class HostStore {
  constructor(object) {
    if (object === null || typeof object !== "object") {
      throw failed(`the host store must be an object with get, put, delete and list methods; got ${describe(object)}`);
    }
    const method = (name) => {
      let value;
      try {
        value = object[name];
      } catch (thrown) {
        throw failure(`reading the host store's \`${name}\` method`, thrown);
      }
      if (typeof value !== "function") throw failed(`the host store has no \`${name}\` method (it needs ${METHODS})`);
      return value;
    };
    this.object = object;
    this.methods = [method("get"), method("put"), method("delete")];
    this.list = method("list");
    let compareAndPut;
    try {
      compareAndPut = object.compareAndPut;
    } catch {
      // Read as absent, as any other value that is not a function.
    }
    this.compareAndPut = typeof compareAndPut === "function" ? compareAndPut : undefined;
  }

  /**
   * `kind` 0: `get(key)`, what it gives (`undefined` and `null` mean no record); 1: `put(key, value)`;
   * 2: `delete(key)`. What a put or delete returns is ignored.
   */
  async run(kind, key, value) {
    const name = ["get", "put", "delete"][kind];
    const operation = `host store ${name}(${JSON.stringify(key)}${kind === 1 ? ", …)" : ")"}`;
    const got = await this.call(this.methods[kind], kind === 1 ? [key, value] : [key], operation);
    if (kind !== 0 || got === undefined || got === null) return undefined;
    if (typeof got !== "string") throw failed(`${operation} returned ${typeName(got)}; expected a string, undefined or null`);
    return got;
  }

  /**
   * `list(prefix)` as a flat array `[key, value, key, value, …]` of the items whose key starts with
   * `prefix`, in the host's order. Each item is a `[key, value]` pair or a `{ key, value }` object
   * (`Map#entries()` spread into an array, rows from a database), with string key and value.
   */
  async listAll(prefix) {
    const operation = `host store list(${JSON.stringify(prefix)})`;
    const items = await this.call(this.list, [prefix], operation);
    if (!Array.isArray(items)) {
      throw failed(`${operation} returned ${typeName(items)}; expected an array of [key, value] pairs or { key, value } objects`);
    }
    const flat = [];
    for (let index = 0; index < items.length; index++) {
      const [key, value] = entry(items[index]);
      if (typeof key !== "string" || typeof value !== "string") {
        throw failed(
          `${operation} item ${index} is ${typeName(items[index])}; expected a [key, value] pair or a { key, value } object with string key and value`,
        );
      }
      if (key.startsWith(prefix)) flat.push(key, value);
    }
    return flat;
  }

  /**
   * `compareAndPut(key, expected, value)`: whether the value was written because the stored text still
   * equalled `expected` (`null`: absent). Undefined when the host store has no such method.
   */
  async compareAndPutIf(key, expected, value) {
    if (this.compareAndPut === undefined) return undefined;
    const operation = `host store compareAndPut(${JSON.stringify(key)}, …)`;
    const written = await this.call(this.compareAndPut, [key, expected ?? null, value], operation);
    if (typeof written !== "boolean") throw failed(`${operation} returned ${typeName(written)}; expected a boolean`);
    return written;
  }

  /**
   * Calls one host method with the object as `this` and awaits what it returns, a Promise (any
   * thenable) or not; a synchronous throw and a rejection are reported the same way.
   */
  async call(method, args, operation) {
    try {
      return await method.apply(this.object, args);
    } catch (thrown) {
      throw failure(operation, thrown);
    }
  }
}

/** One listed item as `[key, value]`, from either accepted shape (anything else gives no strings). */
function entry(item) {
  if (Array.isArray(item)) return item.length === 2 ? item : [];
  if (item !== null && typeof item === "object") return [item.key, item.value];
  return [];
}

const failed = (message) => ({ kind: "failed", message });

/** What `thrown` during `operation` means: out of quota, whoever threw it, or a failure naming both. */
function failure(operation, thrown) {
  if (nameOf(thrown) === "QuotaExceededError") return { kind: "quota", message: "" };
  return failed(`${operation}: ${describe(thrown)}`);
}

/** `thrown.name` if `thrown` is an object and its name a string (a read that throws is left out). */
function nameOf(thrown) {
  if (thrown === null || typeof thrown !== "object") return undefined;
  try {
    const name = thrown.name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A thrown value as text: a string as itself; an object with a string `name` or `message` as
 * `name: message` (or the one it has); anything else as `String(value)`.
 */
function describe(value) {
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") {
    const name = nameOf(value);
    let message;
    try {
      message = typeof value.message === "string" ? value.message : undefined;
    } catch {
      // A hostile getter: left out.
    }
    if (name !== undefined && message) return `${name}: ${message}`;
    if (name !== undefined) return name;
    if (message !== undefined) return message;
  }
  try {
    return String(value);
  } catch {
    return "(a value that cannot be shown as text)";
  }
}

/** What a wrong value was, for error messages (`typeof`, with `null` and arrays told apart). */
function typeName(value) {
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : `a value of type ${typeof value}`;
}
