import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The gateway serves dist/ at `/`; assets get content-hashed names, so it caches them as immutable.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
