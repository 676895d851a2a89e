// A stored JSON document answered as a download, streamed from the bucket as it is read.
export const jsonDownload = (object: R2ObjectBody, filename: string) =>
  new Response(object.body, {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(object.size),
      "content-disposition": `attachment; filename="${filename}"`,
    },
  });
