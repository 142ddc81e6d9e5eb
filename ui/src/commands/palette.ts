import { createContext, useContext } from "react";

/** What the palette lists: every action, or only the choices `/model` or `/reasoning` offer. */
export type PaletteMode = "all" | "model" | "reasoning";

/** Opens the command palette (the desktop's shell provides it; the composer's `/model` uses it). */
export const PaletteContext = createContext<(mode: PaletteMode) => void>(() => {});

export const useOpenPalette = () => useContext(PaletteContext);
