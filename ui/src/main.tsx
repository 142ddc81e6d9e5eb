import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./styles/app.css";

async function start() {
  // The in-memory backend for browser previews and screenshots. The condition
  // is false at build time in production, so the mock is not even bundled.
  if (import.meta.env.MODE === "mock" || (import.meta.env.DEV && new URLSearchParams(location.search).has("mock"))) {
    const { installMockBackend } = await import("./mock/backend");
    installMockBackend();
  }
  const root = document.getElementById("root");
  if (!root) throw new Error("index.html has no #root element");
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void start();
