/** runbound's version, as the MCP server reports it (kept equal to package.json by a test). */
export const VERSION = "0.1.0";
