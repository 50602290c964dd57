# A postback receiver for the benchmarks: answers every request 200 on kept-alive connections and counts
# them, with as little of its own CPU as python allows (asyncio, no per-request objects beyond the parse),
# so that the receiver's share of two shared cores does not decide the server's figures. The tests use
# Tests/RulekitCLITests/Fixtures/postback_receiver.py, which records and misbehaves on request.
# Prints its port on the first line of stdout; exits when stdin closes (--until-stdin-closes) or on SIGTERM.
import asyncio, sys

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}"
count = 0


class Sink(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        global count
        buf = self.buffer + data
        answers = 0
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                break
            head = buf[:end].lower()
            length = 0
            at = head.find(b"\r\ncontent-length:")
            if at >= 0:
                stop = head.find(b"\r\n", at + 2)
                length = int(head[at + 17:stop if stop >= 0 else len(head)])
            total = end + 4 + length
            if len(buf) < total:
                break
            buf = buf[total:]
            answers += 1
        self.buffer = buf
        if answers:
            count += answers
            self.transport.write(ANSWER * answers)


async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Sink, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    if "--until-stdin-closes" in sys.argv:
        await loop.run_in_executor(None, sys.stdin.read)
    else:
        await asyncio.Event().wait()


asyncio.run(main())
