import subprocess, json, time, os, zmq, sys
ctx=zmq.Context()
base='/work/scratch/cluster'
def leads(p):
    s=ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER,0); s.connect(f'tcp://127.0.0.1:{p}')
    s.send(b'{"cmd":"stats"}')
    r=json.loads(s.recv()) if s.poll(2000) else None; s.close()
    return r['shards']['leads'] if r else None
lost=0
for it in range(int(sys.argv[1])):
    time.sleep(float(sys.argv[2]))
    L=None
    for i,p in ((1,28410),(2,28420),(3,28430)):
        l=leads(p)
        if l: L=i
    pid=int(open(f'{base}/d{L}/pid').read())
    t=time.time(); os.kill(pid,15)
    ok=False
    for j in range(50):
        try: os.kill(pid,0)
        except ProcessLookupError: ok=True; break
        time.sleep(0.1)
    print(f"iter {it}: leader d{L} pid {pid} exited={ok} after {time.time()-t:.1f}s", flush=True)
    if not ok:
        lost+=1; os.kill(pid,15); time.sleep(3)
        try: os.kill(pid,0); os.kill(pid,9); print("needed SIGKILL")
        except ProcessLookupError: print("second SIGTERM worked")
    else:
        try: os.waitpid(pid,0)
        except ChildProcessError: pass
    p=subprocess.Popen(['setsid',f'{base}/bin/segued','--config',f'{base}/d{L}/segued.json'],stdout=open(f'{base}/logs/d{L}.log','a'),stderr=subprocess.STDOUT,cwd=base, start_new_session=False)
    open(f'{base}/d{L}/pid','w').write(str(p.pid))
    time.sleep(1.5)
print("lost",lost)
