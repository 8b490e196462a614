/** @type {import('next').NextConfig} */
const nextConfig = {
  // No Google fonts, no images to optimise: `next build` runs offline.
  reactStrictMode: true,
};
export default nextConfig;
