const a = 1;   
const b = 2;	
const c = 3;  
