/**
 * Node 20 lacks `Promise.withResolvers` (ES2024, Node 22+), which libp2p 3 calls at run time (stream
 * reads, dials). This module installs a spec-shaped polyfill; the package index imports it before
 * anything that loads libp2p. It has no effect where the runtime already provides the function.
 */

interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

type PromiseWithResolvers = { withResolvers?: <T>() => Resolvers<T> };

function withResolvers<T>(this: PromiseConstructor | undefined): Resolvers<T> {
  const Ctor: PromiseConstructor = typeof this === "function" ? this : Promise;
  let resolve!: (value: T | PromiseLike<T>) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Ctor<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function installPromiseWithResolvers(): void {
  const P = Promise as unknown as PromiseWithResolvers;
  if (typeof P.withResolvers !== "function") {
    Object.defineProperty(Promise, "withResolvers", {
      value: withResolvers,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
}

installPromiseWithResolvers();
