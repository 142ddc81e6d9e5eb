import { useEffect, useState } from "react";

/** A module imported on first use and then held, so later renders get it at once. */
export interface LazyModule<T> {
  /** The module, once loaded. */
  readonly current: T | null;
  /** Imports it (once; again after a failure). */
  load(): Promise<T>;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let pending: Promise<T> | null = null;
  const lazy = {
    current: null as T | null,
    load(): Promise<T> {
      pending ??= importer().then(
        (module) => (lazy.current = module),
        (error: unknown) => {
          pending = null;
          throw error;
        },
      );
      return pending;
    },
  };
  return lazy;
}

/** The module, loading it if it is not yet: null until then. */
export function useLazyModule<T>(lazy: LazyModule<T>): T | null {
  const [module, setModule] = useState<T | null>(() => lazy.current);
  useEffect(() => {
    if (module) return;
    let live = true;
    lazy.load().then(
      (loaded) => live && setModule(() => loaded),
      (error: unknown) => console.error("a part of the app failed to load", error),
    );
    return () => {
      live = false;
    };
  }, [lazy, module]);
  return module;
}
