/** Hostile values for the "nothing throws into user code" tests. */

/** A Proxy on which every trap throws `new Error(message)` (a fresh error each time). */
export function throwingProxy(message: string): object {
  const trap = () => {
    throw new Error(message);
  };
  return new Proxy(
    {},
    {
      get: trap,
      has: trap,
      ownKeys: trap,
      getOwnPropertyDescriptor: trap,
      getPrototypeOf: trap,
      defineProperty: trap,
      set: trap,
      deleteProperty: trap,
      isExtensible: trap,
      preventExtensions: trap,
      setPrototypeOf: trap,
    },
  );
}
