// SQL, YAML and text files are bundled as text (wrangler.toml [[rules]] type = "Text").
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.yml" {
  const text: string;
  export default text;
}
declare module "*.txt" {
  const text: string;
  export default text;
}
