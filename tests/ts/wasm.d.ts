// What the npm README tells a TypeScript user to declare for a bundler's file loader.
declare module "*.wasm" {
  const url: string;
  export default url;
}
