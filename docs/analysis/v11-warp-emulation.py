import numpy as np
rng=np.random.default_rng(3)
ld=68
A=np.zeros((64,ld))
Akk=np.tril(rng.normal(size=(64,64))*0.1,-1)   # strictly lower (beta * kk^T)
A[:, :64]=Akk
# phase A: diagonal blocks inverted in place (as the kernel's forward substitution)
for I in range(4):
    blk=np.eye(16)+Akk[16*I:16*I+16,16*I:16*I+16]
    A[16*I:16*I+16,16*I:16*I+16]=np.linalg.inv(blk)
P=np.zeros(4*16*17)
flat=A.reshape(-1)
def mma(acc, Mbase, ldm, Nbase, ldn, Mbuf, Nbuf):
    # emulate a warp: gather fragments exactly as the kernel indexes them
    Am=np.zeros((16,8)); Bm=np.zeros((8,8))
    for lane in range(32):
        gid,tig=lane>>2,lane&3
        Am[gid,tig]=Mbuf[Mbase+gid*ldm+tig]; Am[gid+8,tig]=Mbuf[Mbase+(gid+8)*ldm+tig]
        Am[gid,tig+4]=Mbuf[Mbase+gid*ldm+tig+4]; Am[gid+8,tig+4]=Mbuf[Mbase+(gid+8)*ldm+tig+4]
        Bm[tig,gid]=Nbuf[Nbase+tig*ldn+gid]; Bm[tig+4,gid]=Nbuf[Nbase+(tig+4)*ldn+gid]
    return acc+Am@Bm
for I in range(1,4):
    accs={}
    for warp in range(8):
        J=warp>>1; c0=16*J+8*(warp&1)
        if warp<2*I:
            acc=np.zeros((16,8))
            for K in range(J,I):
                for k0 in (0,8):
                    acc=mma(acc,16*I*ld+16*K+k0,ld,(16*K+k0)*ld+c0,ld,flat,flat)
            base=J*16*17+8*(warp&1)
            for r in range(16):
                for c in range(8): P[base+r*17+c]=acc[r,c]
    for warp in range(8):
        J=warp>>1; c0=16*J+8*(warp&1)
        if warp<2*I:
            acc=np.zeros((16,8))
            for k0 in (0,8):
                acc=mma(acc,16*I*ld+16*I+k0,ld,(J*16+k0)*17+8*(warp&1),17,flat,P)
            for r in range(16):
                for c in range(8): flat[(16*I+r)*ld+c0+c]=-acc[r,c]
X=flat.reshape(64,ld)[:,:64]
Xt=np.tril(X)
ref=np.linalg.inv(np.eye(64)+Akk)
print('max err', np.abs(Xt-ref).max(), 'upper nonzero?', np.abs(np.triu(X,16)).max())
