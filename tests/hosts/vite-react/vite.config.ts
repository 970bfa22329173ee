import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Vite's defaults and nothing for the package: the .wasm is found through new URL(…, import.meta.url).
export default defineConfig({ plugins: [react()] });
