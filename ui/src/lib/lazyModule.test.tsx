import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { lazyModule, useLazyModule, type LazyModule } from "./lazyModule";

function Greeting({ lazy }: { lazy: LazyModule<{ greet: (name: string) => string }> }) {
  const module = useLazyModule(lazy);
  return <p>{module ? module.greet("Ana") : "plain text first"}</p>;
}

describe("a module loaded on demand", () => {
  it("shows the fallback, then the module; a later mount gets it at once, imported once", async () => {
    let resolve: (module: { greet: (name: string) => string }) => void = () => {};
    const importer = vi.fn(() => new Promise<{ greet: (name: string) => string }>((r) => (resolve = r)));
    const lazy = lazyModule(importer);
    const first = render(<Greeting lazy={lazy} />);
    expect(screen.getByText("plain text first")).toBeInTheDocument();
    resolve({ greet: (name) => `Hello, ${name}` });
    expect(await screen.findByText("Hello, Ana")).toBeInTheDocument();
    first.unmount();
    render(<Greeting lazy={lazy} />);
    expect(screen.getByText("Hello, Ana")).toBeInTheDocument();
    expect(importer).toHaveBeenCalledTimes(1);
  });

  it("imports again after a failed import", async () => {
    const importer = vi.fn().mockRejectedValueOnce(new Error("chunk missing")).mockResolvedValueOnce({ greet: () => "loaded" });
    const lazy = lazyModule(importer);
    await expect(lazy.load()).rejects.toThrow("chunk missing");
    expect(lazy.current).toBeNull();
    await expect(lazy.load()).resolves.toEqual({ greet: expect.any(Function) });
    expect(importer).toHaveBeenCalledTimes(2);
  });
});
