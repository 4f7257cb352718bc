"""A TLS front for the S3 gateway (which the tests run over plain
HTTP): connections on its port speak TLS with CERT and KEY, and are
relayed to the gateway as they are.

    tls_proxy.py UPSTREAM_PORT CERT KEY

prints its port, then serves until killed."""
import asyncio
import ssl
import sys

UP, CERT, KEY = int(sys.argv[1]), sys.argv[2], sys.argv[3]


async def pipe(reader, writer):
    try:
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def relay(client_r, client_w):
    try:
        up_r, up_w = await asyncio.open_connection("127.0.0.1", UP)
    except OSError:
        client_w.close()
        return
    await asyncio.gather(pipe(client_r, up_w), pipe(up_r, client_w))


async def main():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    server = await asyncio.start_server(relay, "127.0.0.1", 0, ssl=ctx)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


asyncio.run(main())
