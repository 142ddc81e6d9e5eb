import { createContext, useContext, useState, useSyncExternalStore, type ReactNode } from "react";
import { createActions, createStore, type Actions, type AppState, type Store } from "./store";

interface Bound {
  store: Store;
  actions: Actions;
}

const StoreContext = createContext<Bound | null>(null);

/** Holds the app's store for everything below it; a test may pass its own. */
export function StoreProvider({ store, children }: { store?: Store; children: ReactNode }) {
  const [bound] = useState<Bound>(() => {
    const own = store ?? createStore();
    return { store: own, actions: createActions(own) };
  });
  return <StoreContext.Provider value={bound}>{children}</StoreContext.Provider>;
}

function useBound(): Bound {
  const bound = useContext(StoreContext);
  if (!bound) throw new Error("useAppState and useActions need a StoreProvider above them");
  return bound;
}

/** A slice of the app state; the component re-renders when it changes. Return stored values, not new objects. */
export function useAppState<T>(selector: (state: AppState) => T): T {
  const { store } = useBound();
  return useSyncExternalStore(store.subscribe, () => selector(store.get()));
}

/** The app's actions: stable functions, the same for the store's lifetime. */
export function useActions(): Actions {
  return useBound().actions;
}
